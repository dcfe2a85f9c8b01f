#if Postgres
  public import RateLimit

  extension PostgresRateLimiter {
    /// Where "now" comes from.
    ///
    /// | | "now" | a `Reservation`'s `time` | `acquire` waits on |
    /// |---|---|---|---|
    /// | ``database`` | the database server's `clock_timestamp()`, read inside each decision | nanoseconds since the Unix epoch, on the server's clock | a `ContinuousClock`, for the `delay` |
    /// | ``clock(_:)`` | `c.now`, sent with each decision | `c`'s instant | `c`'s timer |
    ///
    /// A clock that steps back counts as no time passing, as for `RateLimiter`. With ``clock(_:)`` a sliding
    /// window's instants move back with `c` (its readings go to the database on a time line that never goes
    /// back) and a token bucket takes the step in as Go's does: each key answers as a `KeyedRateLimiter` on `c`
    /// would. With ``database``, a key never goes behind the latest "now" a decision on it used, so for that
    /// key no time passes until the server's clock catches up.
    public struct Time: Sendable {
      /// `nil`: the database's clock.
      let clock: (any RateLimitClock)?

      /// The database server's clock, read inside each decision: every instance agrees, whatever its own clock
      /// says. The default.
      public static var database: Time { Time(clock: nil) }

      /// A clock of this process (`ManualClock` in tests). Every limiter sharing a name must use the same one:
      /// with it, each key answers exactly as a `KeyedRateLimiter` on the same clock would.
      public static func clock(_ clock: some RateLimitClock) -> Time { Time(clock: clock) }
    }
  }
#endif
