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
    /// Either way a key's "now" never goes behind the latest one a decision on it used: a clock that steps back
    /// counts as no time passing until it catches up.
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
