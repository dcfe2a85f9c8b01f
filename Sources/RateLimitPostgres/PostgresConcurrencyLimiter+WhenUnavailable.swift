#if Postgres
  public import RateLimit

  extension PostgresConcurrencyLimiter {
    /// What a decision does when the database cannot answer within `timeout` (as `PostgresRateLimiter`'s).
    ///
    /// | policy | `tryAcquire` / `decide` | `acquire`, `withLease` (also a waiter whose database goes away) |
    /// |---|---|---|
    /// | ``throwError`` | throws `.unavailable` | throws `.unavailable` |
    /// | ``allow`` | a lease nobody counts (`isFallback`, `remaining` = `limit`) | a lease nobody counts |
    /// | ``deny`` | `nil` (`isFallback`) | throws `.unavailable` |
    /// | ``fallback(_:)`` | the local limiter's answer (`isFallback`) | joins the local limiter's line, `maxWait` counted from the start |
    ///
    /// `inUse` and `update` always throw ``PostgresRateLimiterError/unavailable(underlying:)``; caller errors
    /// (capacity, an invalid key, cancellation, `maxWait`) never fall back.
    public enum WhenUnavailable: Sendable {
      /// Throws ``PostgresRateLimiterError/unavailable(underlying:)``.
      case throwError
      /// A lease that nobody counts; its release does nothing.
      case allow
      /// `tryAcquire` answers `nil`; `acquire` throws ``PostgresRateLimiterError/unavailable(underlying:)``.
      case deny
      /// This instance's share of the limit, in process.
      case fallback(KeyedConcurrencyLimiter<String>)
    }
  }
#endif
