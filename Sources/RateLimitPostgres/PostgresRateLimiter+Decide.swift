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
      try await decision(permits, for: key, undoable: false).decision
    }

    /// ``decide(_:for:)``, and with `undoable` a way to take its grant back exactly (RateLimitHTTP's all or
    /// nothing): the database's booking by its id (``undo(_:permits:key:)``), a fallback's in process.
    func decision(_ permits: Int, for key: String, undoable: Bool) async throws -> UndoableDecision {
      try await perform(.decide, permits, for: key) { request, route in
        try await decided(request, route, undoable: undoable)
      } whenUnavailable: { error in
        try policyAnswer(error, permits, for: key, undoable: undoable)
      }
    }

    /// ``decide(_:for:)``'s answer for `request` on `route` (a penalty's decision as usual too).
    func decided(_ request: Request, _ route: Route, undoable: Bool) async throws -> UndoableDecision {
      switch route {
      case .unlimited:
        return UndoableDecision(try await unlimitedDecision(request.permits, key: request.key.bytes), undo: nil)
      case .beyondCapacity:
        let report = try await reportWithoutBooking(request.permits, key: request.key.bytes)
        // That read brought this limiter under the name's stored rule: if another process's `update` raised the
        // capacity, the request is decided as usual (4.2 reported it granted, with nothing booked).
        if request.permits > capacity { return UndoableDecision(report, undo: nil) }
        return try await decided(request, self.route(request), undoable: undoable)
      case .refusedHere(let refusal):
        return UndoableDecision(report(refusal, at: request.now), undo: nil)
      case .database:
        let decision = try await ask(request)
        guard undoable, decision.booked else { return UndoableDecision(report(decision), undo: nil) }
        return takeBackable(decision, permits: request.permits, key: request.key.bytes)
      }
    }

    /// The refusal in force for `key` in this process (`localRefusals`), as a decision; `nil` if none.
    func localRefusal(for key: ByteBuffer) -> RateLimitDecision? {
      store.refusalInForce(for: key).map { report($0.refusal, at: $0.now) }
    }

    /// A refusal in force in this process (`localRefusals`) at `now`, as a decision.
    func report(_ refusal: LocalRefusals.Refusal, at now: Duration) -> RateLimitDecision {
      RateLimitDecision(
        isGranted: false, limit: capacity, window: window, remaining: 0,
        resetAfter: max(.zero, refusal.restAt - now), retryAfter: refusal.until - now,
        effectiveWindow: refusal.until - now, quotaWindow: door.quotaWindow)
    }

    /// What ``whenUnavailable`` answers for a decision the database could not make, `isFallback` set; with
    /// `undoable`, a fallback's grant can be taken back.
    func policyAnswer(_ error: Unavailable, _ permits: Int, for key: String, undoable: Bool) throws
      -> UndoableDecision
    {
      try answer(
        error,
        allow: UndoableDecision(policyDecision(granted: true), undo: nil),
        deny: UndoableDecision(policyDecision(granted: false), undo: nil)
      ) { local in
        let made =
          undoable
          ? local.decideUndoably(permits, for: key) : UndoableDecision(local.decide(permits, for: key), undo: nil)
        var decision = made.decision
        decision.isFallback = true
        guard made.decision.isGranted, undoable else { return UndoableDecision(decision, undo: nil) }
        return UndoableDecision(decision) {
          var after = await made.undo()
          after.isFallback = true
          return after
        }
      }
    }

    /// A granted decision that RateLimitHTTP can take back: undone (a refused request's grant, revoked later if
    /// the database cannot answer now), or given back (a served request's, left taken if it cannot).
    /// With `joint`, the step that made it with other grants of the request and gives them back together.
    func takeBackable(
      _ decision: Decision, permits: Int, key: ByteBuffer, joint: (step: JointGiveBack, part: Int)? = nil
    ) -> UndoableDecision {
      UndoableDecision(
        report(decision), undo: { [self] in await undo(decision, permits: permits, key: key) },
        giveBack: { [self] in _ = await undo(decision, permits: permits, key: key, revokingLater: false) },
        joint: joint)
    }

    /// Takes back booking `decision.id`, exactly (`ratelimit_undo_v5`), and reports the key after it as granted:
    /// one round trip, in the lane like a decision (alone when nothing is in flight, else with the decisions and
    /// give-backs queued meanwhile, SPEC 4.2). When the database cannot answer now, the booking is revoked in the
    /// background (as a decision that timed out is), or with `revokingLater` false (a served request's give-back)
    /// left taken and logged; the decision is reported as made.
    func undo(_ decision: Decision, permits: Int, key: ByteBuffer, revokingLater: Bool = true) async
      -> RateLimitDecision
    {
      if let after = await store.giveBack(decision.id, permits: permits, key: key) {
        var granted = report(after)
        (granted.isGranted, granted.retryAfter) = (true, nil)
        return granted
      }
      if revokingLater {
        store.revokeLater(decision.id, key: key)
      } else {
        store.logger.debug(
          "rate limit: a served request's permits could not be given back; they stay taken",
          metadata: ["ratelimit.name": "\(name)", "permits": "\(permits)"])
      }
      return report(decision)
    }

    /// A report that books nothing, in one round trip that reads only (as `retryAfter` does): for more than the
    /// capacity, refused with `retryAfter` `nil` and what the key has left, as `KeyedRateLimiter.decide` reports
    /// it; for a part of a joint request that can never be granted, its own answer (granted if it could grant
    /// now) with nothing taken. When the database cannot answer, `.throwError` throws; any other policy gets a
    /// refusal with nothing known of the key (`remaining` 0).
    func reportWithoutBooking(_ permits: Int, key: ByteBuffer) async throws -> RateLimitDecision {
      try await answering {
        let read = try await store.ask(.retryAfter, permits, key: key, maxDelay: nil, at: store.localClock.now)
        var decision = report(read)
        if permits > capacity {
          decision.retryAfter = nil
        } else if decision.retryAfter == .zero {
          (decision.isGranted, decision.retryAfter) = (true, nil)
        }
        return decision
      } whenUnavailable: { error in
        let refusal = policyDecision(granted: false)
        return try answer(error, allow: refusal, deny: refusal) { _ in refusal }
      }
    }

    /// A part of a request refused without deciding it (another part was refused in this process): nothing
    /// taken, nothing known of the key now, no permit promised before `wait`; its fields are left out.
    func undecided(wait: Duration = .zero) -> RateLimitDecision {
      var decision = RateLimitDecision(
        isGranted: true, limit: capacity, window: window, remaining: 0, resetAfter: wait, retryAfter: nil,
        effectiveWindow: wait, quotaWindow: door.quotaWindow)
      decision.isUndecided = true
      return decision
    }

    /// With no limiting (`window: .zero`) and no block: granted up to the capacity, nothing stored.
    func unlimitedDecision(_ permits: Int) -> RateLimitDecision {
      door.report(
        PermitVerdict(
          isGranted: permits <= capacity, remaining: capacity, resetAfter: 0, retryAfter: nil, effectiveWindow: 0))
    }

    /// The public form of a decision's answer (the core's, ``PermitFrontDoor``).
    func report(_ decision: Decision) -> RateLimitDecision {
      door.report(
        PermitVerdict(
          isGranted: decision.booked, remaining: Int(clamping: decision.remaining),
          resetAfter: decision.restAt <= decision.now ? 0 : decision.restAt &- decision.now,
          retryAfter: decision.booked ? nil : max(0, decision.time &- decision.now),
          effectiveWindow: max(0, decision.effective)))
    }

    /// What `.allow` and `.deny` answer when the database cannot: nothing known of the key (granted with the whole
    /// quota left, or refused with `remaining` 0 and `retryAfter` `nil`), `isFallback` set; its effective window a
    /// whole window (nothing promised sooner).
    private func policyDecision(granted: Bool) -> RateLimitDecision {
      var decision = door.report(
        PermitVerdict(
          isGranted: granted, remaining: granted ? capacity : 0, resetAfter: 0, retryAfter: nil,
          effectiveWindow: wholeNanoseconds(window, roundingUp: true)))
      decision.isFallback = true
      return decision
    }
  }

  extension PostgresRateLimiter: UndoableKeyedLimiter {
    /// A decision whose grant RateLimitHTTP can take back exactly, by revoking its booking (one round trip): for
    /// all-or-nothing policies that cannot decide in one statement (another client, or an in-process limiter).
    package func decideUndoably(_ permits: Int, for key: String) async throws -> UndoableDecision {
      try await decision(permits, for: key, undoable: true)
    }
  }

  extension PostgresRateLimiter: JointlyDecidingLimiter {
    /// Limiters on one `PostgresClient` decide together.
    package var jointGroup: ObjectIdentifier { ObjectIdentifier(store.client) }

    /// Several policies for one key, all or nothing, in one round trip (`ratelimit_decide_all_v6`): no other
    /// decision ever sees part of it. Each part decides at its own limiter's "now" (its `Time`), as alone.
    ///
    /// | the parts | answered |
    /// |---|---|
    /// | one asking one permit is refused in this process (`localRefusals`) | refused, no round trip; a part not asked is undecided (no fields), `remaining` 0 and that refusal's wait |
    /// | one asks more than its limiter's capacity | refused: nothing taken, each part's own answer read without booking (a round trip each) |
    /// | some have no limiting (`window: .zero`) | those granted here unless their key is blocked (a round trip reads each block; a block refuses the request, nothing taken); the others in one round trip, all or nothing |
    /// | the database cannot answer (or the first part's limiter is in its outage back-off) | each part's own policy, here, all or nothing; the statement's bookings are revoked |
    package func decideJointly(_ parts: [(limiter: any SharedKeyedLimiter, permits: Int)], for key: String)
      async throws -> [RateLimitDecision]
    {
      let limiters = parts.compactMap { $0.limiter as? PostgresRateLimiter }
      precondition(limiters.count == parts.count, "every part of a joint decision is a PostgresRateLimiter")
      let keyBytes = try Self.jointKey(limiters, permits: parts.lazy.map(\.permits), key: key)
      if zip(limiters, parts).contains(where: { $1.permits > $0.capacity }) {
        var decisions: [RateLimitDecision] = []
        for (limiter, part) in zip(limiters, parts) {
          decisions.append(
            limiter.isUnlimited
              ? try await limiter.store.throwingUnavailable {
                try await limiter.unlimitedDecision(part.permits, key: keyBytes)
              }
              : try await limiter.reportWithoutBooking(part.permits, key: keyBytes))
        }
        return decisions
      }
      // No limiting: granted here, nothing stored, unless the key is blocked (a round trip reads the block);
      // the limited parts go to the database together.
      var decisions: [RateLimitDecision?] = Array(repeating: nil, count: parts.count)
      let unlimited = limiters.indices.filter { limiters[$0].isUnlimited }
      let byPolicies = try await answering { () -> [RateLimitDecision]? in
        for index in unlimited {
          decisions[index] = try await limiters[index].unlimitedDecision(parts[index].permits, key: keyBytes)
        }
        return nil
      } whenUnavailable: { error in
        let all = zip(limiters, parts).map { (limiter: $0, permits: $1.permits) }
        return try await Self.decideByPolicies(all, key: key, error)
      }
      if let byPolicies { return byPolicies }
      let blocked = unlimited.compactMap { decisions[$0]!.isGranted ? nil : decisions[$0] }
      let limited = limiters.indices.filter { !limiters[$0].isUnlimited }
      if limited.isEmpty { return decisions.map { $0! } }
      let asked = limited.map { (limiter: limiters[$0], permits: parts[$0].permits) }
      // A refused key answers locally in a joint decision too: no round trip while a part is refused here (or
      // a part without limiting is blocked).
      let refusals = asked.map { $0.permits == 1 ? $0.limiter.localRefusal(for: keyBytes) : nil }
      if !blocked.isEmpty || refusals.contains(where: { $0 != nil }) {
        let wait = (refusals.compactMap { $0?.retryAfter } + blocked.compactMap(\.retryAfter)).max() ?? .zero
        for (part, (index, refusal)) in zip(asked, zip(limited, refusals)) {
          // A part not asked: nothing taken, nothing known of it now (its fields are left out: SPEC 4.3.1); no
          // permit promised before the refusal ends.
          decisions[index] = refusal ?? part.limiter.undecided(wait: wait)
        }
        return decisions.map { $0! }
      }
      // Booking ids chosen here, so that a statement this caller gives up on books nothing when it runs late.
      let ids = asked.map { _ in Int64.random(in: (1 << 62)...Int64.max) }
      // The statement's bookings are revoked if it fails once sent (``PostgresPermitStore/decideAll(_:key:)``).
      let answers = try await answering {
        try await decideInTheDatabase(asked, key: keyBytes, ids: ids)
      } whenUnavailable: { error in
        try await Self.decideByPolicies(asked, key: key, error)
      }
      for (index, decision) in zip(limited, answers) { decisions[index] = decision }
      return decisions.map { $0! }
    }

    /// `ratelimit_decide_all_v6`: every part within its limiter's capacity, each limited.
    private func decideInTheDatabase(
      _ parts: [(limiter: PostgresRateLimiter, permits: Int)], key: ByteBuffer, ids: [Int64]
    ) async throws -> [RateLimitDecision] {
      let decisions = try await PostgresPermitStore.decideAll(
        zip(parts, ids).map { part, id in (part.limiter.store, part.permits, id) }, key: key)
      return zip(parts, decisions).map { part, decision in part.limiter.report(decision) }
    }

    /// The parts when the database could not decide them: each limiter's own policy, here, without another
    /// round trip, all or nothing (a refusal takes back the fallbacks' grants; `.throwError` throws after
    /// taking them back). 4.1 asked the database again for each part, one by one.
    private static func decideByPolicies(
      _ parts: [(limiter: PostgresRateLimiter, permits: Int)], key: String, _ error: Unavailable
    ) async throws -> [RateLimitDecision] {
      var made: [UndoableDecision] = []
      do {
        for part in parts {
          made.append(try part.limiter.policyAnswer(error, part.permits, for: key, undoable: true))
        }
      } catch {
        await UndoableDecision.undoGrants(made)
        throw error
      }
      return await UndoableDecision.allOrNothing(made, made.map(\.decision))
    }
  }
#endif
