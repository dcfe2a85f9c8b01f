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
      if isUnlimited {
        return door.report(
          PermitVerdict(isGranted: permits <= capacity, remaining: capacity, resetAfter: 0, retryAfter: nil))
      }
      if permits > capacity { return try await reportRefusingAboveCapacity(permits, key: keyBytes) }
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

    /// More than the capacity is never granted, and books nothing; what the key has left still comes from the
    /// database (a round trip that reads only, as `retryAfter` does), as `KeyedRateLimiter.decide` reports it.
    /// When the database cannot answer, `.throwError` throws; any other policy gets the refusal, with nothing
    /// known of the key (`remaining` 0).
    private func reportRefusingAboveCapacity(_ permits: Int, key: ByteBuffer) async throws -> RateLimitDecision {
      do {
        var decision = report(try await ask(.retryAfter, permits, key: key, maxDelay: nil))
        decision.retryAfter = nil
        return decision
      } catch let error as Unavailable {
        let refusal = policyDecision(granted: false)
        return try answer(error, allow: refusal, deny: refusal) { _ in refusal }
      }
    }

    /// The public form of a decision's answer (the core's, ``PermitFrontDoor``).
    func report(_ decision: Decision) -> RateLimitDecision {
      door.report(
        PermitVerdict(
          isGranted: decision.booked, remaining: Int(clamping: decision.remaining),
          resetAfter: decision.restAt <= decision.now ? 0 : decision.restAt &- decision.now,
          retryAfter: decision.booked ? nil : max(0, decision.time &- decision.now)))
    }

    /// What `.allow` and `.deny` answer when the database cannot: nothing known of the key, `isFallback` set.
    private func policyDecision(granted: Bool) -> RateLimitDecision {
      var decision = door.reportWithoutState(granted: granted)
      decision.isFallback = true
      return decision
    }
  }

  extension PostgresRateLimiter: _JointlyDecidingLimiter {
    /// Limiters on one `PostgresClient` decide together.
    public var _jointGroup: ObjectIdentifier { ObjectIdentifier(client) }

    /// Several policies for one key, all or nothing, in one round trip (`ratelimit_decide_all_v5`): no other
    /// decision ever sees part of it. Each part decides at its own limiter's "now" (its `Time`), as alone. When the database cannot answer, each part's own policy answers, and
    /// the request is granted only if all of them grant.
    public func _decideJointly(_ parts: [(limiter: any SharedKeyedLimiter, permits: Int)], for key: String)
      async throws -> [RateLimitDecision]
    {
      let limiters = parts.compactMap { $0.limiter as? PostgresRateLimiter }
      precondition(limiters.count == parts.count, "every part of a joint decision is a PostgresRateLimiter")
      let keyBytes = try Self.keyBytes(key)
      if parts.isEmpty || zip(limiters, parts).contains(where: { $0.isUnlimited || $1.permits > $0.capacity }) {
        return try await decideOneByOne(parts, key: key)
      }
      do {
        try await prepareIfNeeded()
        // Each part at its own limiter's "now": `c`'s reading as that limiter sends it alone, or the database's.
        let nows = limiters.map(\.nowSent)
        let query: PostgresQuery = """
          SELECT o_booked, o_time, o_now, o_remaining, o_rest_at FROM ratelimit_decide_all_v5(\
          \(limiters.map(\.nameBytes)), \(keyBytes), \(limiters.map { Int64($0.limit) }), \
          \(limiters.map(\.windowNanoseconds)), \(limiters.map { Int64($0.burst ?? 0) }), \
          \(parts.map { Int64($0.permits) }), \(nows.map { $0 ?? 0 }), \(nows.map { $0 != nil }), \(lockTimeout))
          """
        let rows = try await runAll(query, as: (Bool, Int64, Int64, Int64, Int64).self)
        guard rows.count == parts.count else { throw NoRow() }
        return zip(limiters, rows).map { limiter, row in
          limiter.report(
            Decision(time: row.1, now: row.2, id: -1, booked: row.0, remaining: row.3, restAt: row.4))
        }
      } catch is Unavailable {
        // Each limiter's own policy, one by one (not all or nothing: a policy's grant is not taken back).
        return try await decideOneByOne(parts, key: key)
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
