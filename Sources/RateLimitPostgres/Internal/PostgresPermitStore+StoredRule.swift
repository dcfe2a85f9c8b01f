#if Postgres
  import Logging
  import RateLimit

  /// The stored rule wins (SPEC 4.3.1): whatever this limiter was made with, it decides by its name's rule as
  /// `ratelimit_names` stores it (another process's `update`, or this process deployed with other numbers),
  /// reports it, says so once at `warning`, and sizes its `.fallback` limiter to it.
  ///
  /// | the stored rule | this limiter |
  /// |---|---|
  /// | none yet | stores its own (`prepare`) |
  /// | its own | nothing to do |
  /// | another (numbers, or the other kind) | adopts it: `limit`, `window`, `burst`, the fields' `q` and `w`; one warning naming both |
  /// | another than the `.fallback` was sized for | the fallback's `limit` (and `burst`) scaled by the same ratio, at least 1 |
  extension PostgresPermitStore {
    /// Adopts the name's rule as the database stored it, which its statements followed; `nil`s (no row yet, or
    /// a name without limiting) change nothing.
    func adopt(_ stored: StoredRule) {
      if let clock = stored.clock { learn(databaseClock: clock) }
      // A limiter without limiting neither stores a rule nor follows one (a 1 ns rule would be none at all).
      guard !configured.isUnlimited, let limit = stored.limit, let window = stored.window, window > 0 else { return }
      if Self.rule(door.parameters, is: stored) { return }
      let parameters = PermitParameters(
        limit: Int(clamping: limit), window: .nanoseconds(window), burst: stored.burst.map { Int(clamping: $0) })
      door.adopt(parameters)
      follow(parameters)
    }

    /// Whether `parameters` are `stored`, as the database stores them (a window in whole nanoseconds, at least 1).
    static func rule(_ parameters: PermitParameters, is stored: StoredRule) -> Bool {
      Int64(parameters.limit) == stored.limit
        && max(1, wholeNanoseconds(parameters.window, roundingUp: true)) == stored.window
        && parameters.burst.map(Int64.init) == stored.burst
    }

    /// The rule is now `parameters` (adopted, or with `warns` false this limiter's own `update`): a warning the
    /// first time another process's rule is not the one this limiter was made with, and the fallback sized to it.
    func follow(_ parameters: PermitParameters, warns: Bool = true) {
      let first =
        warns && parameters != configured
        && ruleNotices.withLock { notices -> Bool in
          defer { notices.warned = true }
          return !notices.warned
        }
      if first {
        logger.warning(
          """
          rate limit: name "\(name)" is stored with \(parameters.ruleName); this limiter was made with \
          \(configured.ruleName): it decides by the stored rule (update(limit:per:) changes a stored rule)
          """,
          metadata: ["ratelimit.name": "\(name)"])
      }
      guard let fallback else { return }
      let scaled = Self.scaled(fallback.sizedFor, from: configured, to: parameters)
      let changed = ruleNotices.withLock { notices -> Bool in
        defer { notices.fallback = scaled }
        return notices.fallback != scaled
      }
      guard changed else { return }
      if let burst = scaled.burst {
        fallback.limiter.update(limit: scaled.limit, per: fallback.limiter.window, burst: burst)
      } else {
        fallback.limiter.update(limit: scaled.limit, per: fallback.limiter.window)
      }
    }

    /// The fallback's `limit` and `burst` as sized for `configured`, scaled to `rule`: the limit by the limits'
    /// ratio, the burst by the bursts' (the limits' when either rule has none); rounded down, at least 1.
    static func scaled(
      _ sized: FallbackSize, from configured: PermitParameters, to rule: PermitParameters
    ) -> FallbackSize {
      // Every value is at least 1: value × new ÷ old in 128 bits, saturating.
      func scale(_ value: Int, _ new: Int, _ old: Int) -> Int {
        let (high, low) = UInt(value).multipliedFullWidth(by: UInt(new))
        guard high < UInt(old) else { return .max }
        return max(1, Int(clamping: UInt(old).dividingFullWidth((high, low)).quotient))
      }
      let limit = scale(sized.limit, rule.limit, configured.limit)
      guard let burst = sized.burst else { return FallbackSize(limit: limit, burst: nil) }
      if let new = rule.burst, let old = configured.burst {
        return FallbackSize(limit: limit, burst: scale(burst, new, old))
      }
      return FallbackSize(limit: limit, burst: scale(burst, rule.limit, configured.limit))
    }
  }

  /// The database's clock, as far as an operation needs it: an operation sent now is not to run after
  /// ``operationDeadline()`` (`ratelimit_in_time_v1`).
  extension PostgresPermitStore {
    /// This process's monotonic clock in nanoseconds from the store's start.
    var localNanoseconds: Int64 { Int64(clamping: wholeNanoseconds(ContinuousClock.now - started, roundingUp: false)) }

    /// `clock` (`ratelimit_clock()`) was read by a statement answered now: the offset between the two clocks,
    /// below the true one by the time the answer took to be read here (so deadlines computed from it are early,
    /// never late). The largest of the last minute is kept: one answer read late does not pull every deadline
    /// in, and a clock the database stepped back is followed within a minute.
    func learn(databaseClock clock: Int64) {
      let now = localNanoseconds
      let offset = clock &- now
      databaseClockOffset.withLock { kept in
        if let (largest, at) = kept, largest >= offset, now &- at < 60_000_000_000 { return }
        kept = (offset, now)
      }
    }

    /// The database's clock by which an operation sent now must have run, or `nil` before the store has read the
    /// database's clock: half the timeout after now, so that one that runs in time is answered in time. An
    /// operation that runs later changes nothing and its caller has been told it failed (SPEC 4.3.1, "an
    /// operation that threw has not happened").
    func operationDeadline() -> Int64? {
      guard let offset = databaseClockOffset.withLock({ $0?.offset }) else { return nil }
      return offset &+ localNanoseconds &+ wholeNanoseconds(timeout, roundingUp: false) / 2
    }
  }

  /// What the store has said and done about its name's stored rule.
  struct RuleNotices {
    /// Whether the warning that the stored rule is not this limiter's has been logged.
    var warned = false
    /// The fallback's size as last set (`nil`: as it was given).
    var fallback: FallbackSize?
  }

  /// A fallback limiter's `limit` and `burst`.
  struct FallbackSize: Sendable, Equatable {
    var limit: Int
    var burst: Int?
  }

  /// `.fallback`'s limiter, and its size as given, for this limiter's own rule.
  struct SizedFallback: Sendable {
    let limiter: KeyedRateLimiter<String>
    let sizedFor: FallbackSize

    init(_ limiter: KeyedRateLimiter<String>) {
      self.limiter = limiter
      sizedFor = FallbackSize(limit: limiter.limit, burst: limiter.burst)
    }
  }
#endif
