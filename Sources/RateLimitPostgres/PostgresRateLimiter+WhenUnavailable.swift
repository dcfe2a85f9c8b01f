#if Postgres
  public import RateLimit

  extension PostgresRateLimiter {
    /// What a decision does when the database cannot answer within `timeout`: a refused or lost connection, a
    /// server shutting down or restarting, or no answer in time. Once the database answers again, decisions go to
    /// it again, with no restart.
    ///
    /// | policy | `tryAcquire` | `reserve` | `acquire` | `retryAfter` |
    /// |---|---|---|---|---|
    /// | ``throwError`` | throws `.unavailable` | throws | throws | throws |
    /// | ``allow`` | `true` | a booking for now, not stored | returns at once | `.zero` |
    /// | ``deny`` | `false` | `nil` | throws `.unavailable` | `nil` |
    /// | ``fallback(_:)`` | the local limiter's answer, same key | the local limiter's booking | waits on the local limiter | the local limiter's |
    ///
    /// Errors that are the caller's (capacity, `maxDelay`, an invalid key) are never "unavailable" and never fall
    /// back; neither is an error in the statement itself (a missing table), which is a bug. `count()`, `sweep()`
    /// and `Reservation.cancel()` always throw ``PostgresRateLimiterError/unavailable(underlying:)``.
    public enum WhenUnavailable: Sendable {
      /// Throws ``PostgresRateLimiterError/unavailable(underlying:)``.
      case throwError
      /// Fail open: granted.
      case allow
      /// Fail closed: refused.
      case deny
      /// A local limiter decides until the database is back: give it this instance's share of the limit (the
      /// limit divided by the number of instances).
      case fallback(KeyedRateLimiter<String>)

      /// `.fallback`'s limiter; `nil` for the other policies.
      var limiter: KeyedRateLimiter<String>? {
        if case .fallback(let limiter) = self { return limiter }
        return nil
      }
    }
  }
#endif
