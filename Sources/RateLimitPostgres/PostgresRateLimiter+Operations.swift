#if Postgres
  import PostgresNIO
  @_spi(RateLimitIntegration) public import RateLimit

  /// Operating a key and the name's rule across the fleet (SPEC 4.2): the same answers as `KeyedRateLimiter`'s
  /// operations on the same timeline, each one round trip (`Schema+Operations.swift`).
  ///
  /// | operation | in the database |
  /// |---|---|
  /// | ``peek(_:for:)`` | the decision made and rolled back: nothing written |
  /// | ``charge(_:for:)``, ``refund(_:for:)``, ``reset(_:)``, ``block(_:for:)`` | the key's row, under its lock |
  /// | ``update(limit:per:)`` | the name's stored rule, which every process decides by from its next decision |
  ///
  /// Unlike a decision, an operation has no fallback: when the database cannot answer it throws
  /// ``PostgresRateLimiterError/unavailable(underlying:)``, whatever ``whenUnavailable`` says.
  ///
  /// To change a limit in a live fleet: call `update` once (every process decides by the new rule at once), then
  /// deploy the new parameters at leisure: an instance made with other parameters than the stored ones decides by
  /// the stored rule, and logs a warning naming both (SPEC 4.3.1; 4.0 refused it).
  ///
  /// ```swift
  /// try await proLimit.update(limit: 6_000, per: .seconds(60))
  /// // then deploy PostgresRateLimiter(client:name:"pro", limit: 6_000, …)
  /// ```
  extension PostgresRateLimiter: OperableKeyedLimiter {
    /// What `decide(permits, for: key)` would answer now, taking nothing: the decision is made in the database
    /// and rolled back (one round trip, no row written). Like `decide` it asks for `permits`, so its `remaining`
    /// is what would be left *after* such a grant.
    ///
    /// - Throws: ``PostgresRateLimiterError/invalidKey(reason:)``; ``PostgresRateLimiterError/unavailable(underlying:)``.
    public func peek(_ permits: Int = 1, for key: String) async throws -> RateLimitDecision {
      try await perform(.peek, permits, for: key) { request, route in
        try await peeked(request, route)
      } whenUnavailable: { error in
        throw error.error
      }
    }

    /// ``peek(_:for:)``'s answer for `request` on `route`.
    private func peeked(_ request: Request, _ route: Route) async throws -> RateLimitDecision {
      switch route {
      case .unlimited: return try await unlimitedDecision(request.permits, key: request.key.bytes)
      case .beyondCapacity: return try await reportWithoutBooking(request.permits, key: request.key.bytes)
      case .refusedHere, .database:  // a peek is never refused here (the route says `.database`)
        // The report follows the name's stored rule, read in the same statement, as a decision's does (another
        // process's `update`); 4.2 reported this limiter's own parameters until its next decision.
        let (wouldBook, after) = try await store.peek(request.permits, key: request.key.bytes)
        return report(Decision(after, booked: wouldBook))
      }
    }

    /// Takes `permits` now whatever the limit (a cost known only afterwards): the key may go into debt, paid
    /// at the rule's usual rate. Reports the key after, as a grant.
    ///
    /// - Parameters:
    ///   - permits: 0 or more (0 changes nothing; negative traps, naming the value); above the capacity too.
    ///   - key: The key.
    @discardableResult
    public func charge(_ permits: Int, for key: String) async throws -> RateLimitDecision {
      requireNonNegative(permits, "permits", of: "PostgresRateLimiter")
      return try await operate(.charge, Int64(permits), key: key)
    }

    /// Gives back up to `permits` of what the key has taken up to now, the latest first; never a booking ahead.
    /// A key the database holds nothing for stays so. Reports the key after, as a grant.
    ///
    /// - Parameters:
    ///   - permits: 0 or more (0 changes nothing; negative traps, naming the value).
    ///   - key: The key.
    @discardableResult
    public func refund(_ permits: Int, for key: String) async throws -> RateLimitDecision {
      requireNonNegative(permits, "permits", of: "PostgresRateLimiter")
      return try await operate(.refund, Int64(permits), key: key)
    }

    /// Forgets all the key has taken up to now, any debt and any block, on the row every process decides by, and
    /// ends every process's local refusal of the key within one round trip of the commit; bookings ahead stay.
    public func reset(_ key: String) async throws {
      _ = try await operate(.reset, 0, key: key)
    }

    /// Refuses the key everything from now until `duration` from now, in every process of 4.2 or later (a 4.0
    /// process, during a rolling deploy, ignores blocks); a later block may
    /// extend it, one that ends no later changes nothing, `.zero` changes nothing.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - duration: How long from now; must not be negative (a trap names the value); saturates.
    public func block(_ key: String, for duration: Duration) async throws {
      requireNonNegative(duration, "duration", of: "PostgresRateLimiter")
      _ = try await operate(.block, Int64(clamping: wholeNanoseconds(duration, roundingUp: true)), key: key)
    }

    /// Changes this name's stored rule, keeping every key's state (a sliding window's bookings in
    /// (now − old window, ∞) count against the new parameters). This limiter reports the new parameters from now
    /// on; every other process decides by them, and reports them, from its next decision of the name, and its
    /// local refusals of the name end within one round trip of the commit (a 4.0 process ignores it). One round
    /// trip, O(1) however many keys the name holds.
    ///
    /// - Parameters:
    ///   - limit: N, at least 1.
    ///   - window: T, more than zero (a stored rule always limits; a trap names the value).
    /// - Precondition: The name's rule is a sliding window (a trap names both rules).
    public func update(limit: Int, per window: Duration) async throws {
      try await update(limit: limit, window: window, burst: nil)
    }

    /// Changes this name's token bucket, keeping every key's credit (capped by the new burst; a full bucket is
    /// full at the new burst): every process decides by it from its next decision of the name, and its local
    /// refusals of the name end within one round trip of the commit (a 4.0 process ignores it).
    ///
    /// One round trip, O(1) however many keys the name holds: each key is brought under the update when it is
    /// next used (SPEC 4.2, "keys settle when next used").
    ///
    /// - Parameters:
    ///   - limit: N, permits refilled per `window`; at least 1.
    ///   - window: T, more than zero.
    ///   - burst: B, at least 1.
    /// - Precondition: The name's rule is a token bucket (a trap names both rules).
    public func update(limit: Int, per window: Duration, burst: Int) async throws {
      try await update(limit: limit, window: window, burst: burst)
    }

    private func update(limit: Int, window: Duration, burst: Int?) async throws {
      if window <= .zero {
        fatalError("PostgresRateLimiter.update: window must be more than zero, got window: \(window)")
      }
      if isUnlimited {
        fatalError("PostgresRateLimiter.update: a limiter made with window .zero stores no rule to update")
      }
      try await store.throwingUnavailable { try await store.prepareIfNeeded() }
      let before = door.parameters
      door.update(limit: limit, window: window, burst: burst)
      do {
        try await store.throwingUnavailable { try await store.update(limit: limit, window: window, burst: burst) }
      } catch {
        door.adopt(before)  // the stored rule did not change
        throw error
      }
      store.follow(door.parameters, warns: false)
    }

    /// The operations of `ratelimit_operate_v1`.
    enum KeyOperation: Int32 {
      case charge = 1
      case refund = 2
      case reset = 3
      case block = 4
      case penalise = 5

      /// Whether it sets or lifts a block: with no limiting, only a block is stored, so only these go to the
      /// database.
      var storesBlock: Bool { self == .block || self == .penalise || self == .reset }
    }

    /// Runs `operation` on `key` in one round trip and reports the key after it, as a grant.
    private func operate(_ operation: KeyOperation, _ amount: Int64, key: String) async throws -> RateLimitDecision {
      try await perform(.operate(operation, amount: amount), 0, for: key) { request, route in
        try await operated(request, route).granted
      } whenUnavailable: { error in
        throw error.error
      }
    }

    /// An operation's answer for `request` on `route`: the key after it, as a grant, and the wait for one permit
    /// then (nanoseconds).
    private func operated(_ request: Request, _ route: Route) async throws -> (granted: RateLimitDecision, wait: Int64)
    {
      guard case .operate(let operation, let amount) = request.operation, case .database = route else {
        return (unlimitedDecision(1), 0)
      }
      let after = try await store.operate(operation.rawValue, amount, key: request.key.bytes)
      var granted = report(Decision(after, booked: false))
      (granted.isGranted, granted.retryAfter) = (true, nil)
      return (granted, max(0, after.time &- after.now))
    }
  }

  extension PostgresRateLimiter: PenalisingLimiter {
    /// A middleware's penalty in the decision's own round trip (`ratelimit_decide_penalising_v1`): refused by
    /// the rule, the key is blocked for `penalty` from that instant, unless a block is in force. What needs no
    /// statement of its own (no limiting, more than the capacity, a refusal in force in this process) is decided
    /// as usual, and a refusal penalised after it (`ratelimit_operate_v1` op 5, one more round trip).
    package func decidePenalising(_ permits: Int, for key: String, penalty: Duration) async throws
      -> UndoableDecision
    {
      let amount = Int64(clamping: wholeNanoseconds(penalty, roundingUp: true))
      return try await perform(.decidePenalising(penalty: amount), permits, for: key) { request, route in
        switch route {
        case .refusedHere(let refusal) where refusal.isBlock:
          // Refused here during a block this limiter saw: the penalty is in force, nothing to ask.
          return UndoableDecision(report(refusal, at: request.now), undo: nil)
        case .unlimited, .beyondCapacity, .refusedHere:
          let made = try await decided(request.asking(.decide), route, undoable: true)
          guard !made.decision.isGranted, !made.decision.isFallback else { return made }
          return UndoableDecision(await penalised(request, amount) ?? made.decision, undo: nil)
        case .database:
          let decision = try await store.decidePenalising(
            permits, key: request.key.bytes, penalty: amount, id: Int64.random(in: (1 << 62)...Int64.max))
          guard decision.booked else { return UndoableDecision(report(decision), undo: nil) }
          return takeBackable(decision, permits: permits, key: request.key.bytes)
        }
      } whenUnavailable: { error in
        try policyAnswer(error, permits, for: key, undoable: true)
      }
    }

    /// The key blocked for `amount` nanoseconds unless a block is in force (op 5), and the refusal of
    /// `request`'s permits after it; `nil` if the database could not answer (the refusal stands as decided).
    private func penalised(_ request: Request, _ amount: Int64) async -> RateLimitDecision? {
      let penalty = request.asking(.operate(.penalise, amount: amount))
      guard let (after, wait) = try? await operated(penalty, route(penalty)) else { return nil }
      guard request.permits == 1 else {
        let peek = request.asking(.peek)
        return try? await peeked(peek, route(peek))
      }
      var refused = after
      (refused.isGranted, refused.retryAfter, refused.remaining) = (false, .nanoseconds(wait), 0)
      return refused
    }
  }
#endif
