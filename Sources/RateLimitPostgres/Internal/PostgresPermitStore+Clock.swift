#if Postgres
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Darwin)
    import Darwin
  #endif
  import RateLimit

  /// The instants this limiter sends and reports: `.clock(c)`'s readings on a time line that never goes back, and
  /// their way back to `c`; the local clock's "now" when the database's clock decides.
  extension PostgresPermitStore {
    /// "Now" as each statement is sent: `c.now` with `.clock(c)`, `NULL` (the database's clock) by default. A
    /// sliding window's readings go on the time line of ``clockSteps``: the key's instants then move back with a
    /// clock that steps back, as a `KeyedRateLimiter`'s do (a token bucket's take the step in in the database,
    /// as Go's does). A step noticed here moves this process's waiters back too (``waiters``).
    var nowSent: Int64? {
      guard let clock else { return nil }
      let reading = wholeNanoseconds(clock.now, roundingUp: true)
      return clockSteps.withLock { steps in
        let jump = steps.read(reading)
        // This process's waiters move back with the clock, as a `KeyedRateLimiter`'s do.
        if jump > 0 { waiters.clockWentBack(by: jump) }
        return burst == nil ? steps.onTimeLine(reading) : reading
      }
    }

    /// An instant the database answered (on the time line ``nowSent`` sends), on the limiter's clock.
    func onClock(_ instant: Int64) -> Duration {
      guard clock != nil, burst == nil else { return .nanoseconds(instant) }
      return .nanoseconds(clockSteps.withLock { $0.onClock(instant) })
    }

    /// "Now" for a grant made without the database: `c.now`, or this machine's wall clock (Unix epoch).
    func localNow() -> Duration {
      if let clock = clock { return clock.now }
      var spec = timespec()
      clock_gettime(CLOCK_REALTIME, &spec)
      return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }
  }
#endif
