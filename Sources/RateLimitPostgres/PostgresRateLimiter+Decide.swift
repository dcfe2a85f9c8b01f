#if Postgres
  import PostgresNIO
  @_spi(RateLimitIntegration) public import RateLimit

  extension PostgresRateLimiter: SharedKeyedLimiter {
    /// Decides as ``tryAcquire(_:for:)`` does and reports what a response needs about `key` after it, in one
    /// round trip: the same values `KeyedRateLimiter.decide(_:for:)` reports on the same timeline.
    ///
    /// ```swift
    /// let d = try await perClient.decide(for: clientID)
    /// if !d.isGranted { reject(retryAfter: d.retryAfter) }
    /// ```
    ///
    /// When the database cannot answer, the policy's answer: `.allow` granted, `.deny` refused (`retryAfter`
    /// `nil`), `.fallback(l)` `l.decide(permits, for: key)`; each with `isFallback` set. A key refused by the
    /// database is refused here without a round trip until it can grant one permit again (`localRefusals`).
    ///
    /// - Throws: ``PostgresRateLimiterError/invalidKey(reason:)`` (more than 1,024 UTF-8 bytes) without a round
    ///   trip; ``PostgresRateLimiterError/unavailable(underlying:)`` under `.throwError`.
    public func decide(_ permits: Int = 1, for key: String) async throws -> RateLimitDecision {
      door.check(permits)
      let keyBytes = try Self.keyBytes(key)
      if isUnlimited { return unlimitedDecision(permits) }
      if permits > capacity { return try await reportWithoutBooking(permits, key: keyBytes) }
      // A local refusal knows the wait for one permit only: a larger request goes to the database.
      let now = localClock.now
      if permits == 1, let refusal = localRefusals?.refusal(for: key, at: now) {
        return RateLimitDecision(
          isGranted: false, limit: capacity, window: window, remaining: 0,
          resetAfter: max(.zero, refusal.restAt - now), retryAfter: refusal.until - now)
      }
      do {
        let decision = try await ask(.tryAcquire, permits, key: keyBytes, maxDelay: 0, remembering: key)
        return report(decision)
      } catch let error as Unavailable {
        return try answer(
          error,
          allow: policyDecision(granted: true), deny: policyDecision(granted: false)
        ) { local in
          var decision = local.decide(permits, for: key)
          decision.isFallback = true
          return decision
        }
      }
    }

    /// A report that books nothing, in one round trip that reads only (as `retryAfter` does): for more than the
    /// capacity, refused with `retryAfter` `nil` and what the key has left, as `KeyedRateLimiter.decide` reports
    /// it; for a part of a joint request that can never be granted, its own answer (granted if it could grant
    /// now) with nothing taken. When the database cannot answer, `.throwError` throws; any other policy gets a
    /// refusal with nothing known of the key (`remaining` 0).
    func reportWithoutBooking(_ permits: Int, key: ByteBuffer) async throws -> RateLimitDecision {
      do {
        var decision = report(try await ask(.retryAfter, permits, key: key, maxDelay: nil))
        if permits > capacity {
          decision.retryAfter = nil
        } else if decision.retryAfter == .zero {
          (decision.isGranted, decision.retryAfter) = (true, nil)
        }
        return decision
      } catch let error as Unavailable {
        let refusal = policyDecision(granted: false)
        return try answer(error, allow: refusal, deny: refusal) { _ in refusal }
      }
    }

    /// With no limiting (`window: .zero`): granted up to the capacity, nothing stored, no round trip.
    func unlimitedDecision(_ permits: Int) -> RateLimitDecision {
      door.report(PermitVerdict(isGranted: permits <= capacity, remaining: capacity, resetAfter: 0, retryAfter: nil))
    }

    /// The public form of a decision's answer (the core's, ``PermitFrontDoor``).
    func report(_ decision: Decision) -> RateLimitDecision {
      door.report(
        PermitVerdict(
          isGranted: decision.booked, remaining: Int(clamping: decision.remaining),
          resetAfter: decision.restAt <= decision.now ? 0 : decision.restAt &- decision.now,
          retryAfter: decision.booked ? nil : max(0, decision.time &- decision.now)))
    }

    /// What `.allow` and `.deny` answer when the database cannot: nothing known of the key (granted with the whole
    /// quota left, or refused with `remaining` 0 and `retryAfter` `nil`), `isFallback` set.
    private func policyDecision(granted: Bool) -> RateLimitDecision {
      var decision = door.report(
        PermitVerdict(isGranted: granted, remaining: granted ? capacity : 0, resetAfter: 0, retryAfter: nil))
      decision.isFallback = true
      return decision
    }
  }

  extension PostgresRateLimiter: _JointlyDecidingLimiter {
    /// Limiters on one `PostgresClient` decide together.
    public var _jointGroup: ObjectIdentifier { ObjectIdentifier(client) }

    /// Several policies for one key, all or nothing, in one round trip (`ratelimit_decide_all_v5`): no other
    /// decision ever sees part of it. Each part decides at its own limiter's "now" (its `Time`), as alone.
    ///
    /// | the parts | answered |
    /// |---|---|
    /// | one asks more than its limiter's capacity | refused: nothing taken, each part's own answer read without booking (a round trip each) |
    /// | some have no limiting (`window: .zero`) | those granted here; the others in one round trip, all or nothing |
    /// | the database cannot answer | each part's own policy, one by one (a policy's grant is not taken back) |
    public func _decideJointly(_ parts: [(limiter: any SharedKeyedLimiter, permits: Int)], for key: String)
      async throws -> [RateLimitDecision]
    {
      let limiters = parts.compactMap { $0.limiter as? PostgresRateLimiter }
      precondition(limiters.count == parts.count, "every part of a joint decision is a PostgresRateLimiter")
      let keyBytes = try Self.keyBytes(key)
      if zip(limiters, parts).contains(where: { $1.permits > $0.capacity }) {
        var decisions: [RateLimitDecision] = []
        for (limiter, part) in zip(limiters, parts) {
          decisions.append(
            limiter.isUnlimited
              ? limiter.unlimitedDecision(part.permits)
              : try await limiter.reportWithoutBooking(part.permits, key: keyBytes))
        }
        return decisions
      }
      // No limiting: granted here, nothing stored; the limited parts go to the database together.
      var decisions = zip(limiters, parts).map { $0.isUnlimited ? $0.unlimitedDecision($1.permits) : nil }
      let limited = limiters.indices.filter { !limiters[$0].isUnlimited }
      if limited.isEmpty { return decisions.map { $0! } }
      do {
        let rows = try await decideInTheDatabase(limited.map { (limiters[$0], parts[$0].permits) }, key: keyBytes)
        for (index, decision) in zip(limited, rows) { decisions[index] = decision }
        return decisions.map { $0! }
      } catch is Unavailable {
        // Each limiter's own policy, one by one (not all or nothing: a policy's grant is not taken back).
        return try await decideOneByOne(parts, key: key)
      }
    }

    /// `ratelimit_decide_all_v5`: every part within its limiter's capacity, each limited.
    private func decideInTheDatabase(_ parts: [(limiter: PostgresRateLimiter, permits: Int)], key: ByteBuffer)
      async throws -> [RateLimitDecision]
    {
      try await prepareIfNeeded()
      let limiters = parts.map(\.limiter)
      // Each part at its own limiter's "now": `c`'s reading as that limiter sends it alone, or the database's.
      let nows = limiters.map(\.nowSent)
      let query: PostgresQuery = """
        SELECT o_booked, o_time, o_now, o_remaining, o_rest_at FROM ratelimit_decide_all_v5(\
        \(limiters.map(\.nameBytes)), \(key), \(limiters.map { Int64($0.limit) }), \
        \(limiters.map(\.windowNanoseconds)), \(limiters.map { Int64($0.burst ?? 0) }), \
        \(parts.map { Int64($0.permits) }), \(nows.map { $0 ?? 0 }), \(nows.map { $0 != nil }), \(lockTimeout))
        """
      let rows = try await runAll(query, as: (Bool, Int64, Int64, Int64, Int64).self)
      guard rows.count == parts.count else { throw NoRow() }
      return zip(limiters, rows).map { limiter, row in
        limiter.report(Decision(time: row.1, now: row.2, id: -1, booked: row.0, remaining: row.3, restAt: row.4))
      }
    }

    /// The parts one at a time, as RateLimitHTTP would for in-process limiters; used when the store is away.
    private func decideOneByOne(_ parts: [(limiter: any SharedKeyedLimiter, permits: Int)], key: String)
      async throws -> [RateLimitDecision]
    {
      var decisions: [RateLimitDecision] = []
      for part in parts { decisions.append(try await part.limiter.decide(part.permits, for: key)) }
      return decisions
    }
  }
#endif
