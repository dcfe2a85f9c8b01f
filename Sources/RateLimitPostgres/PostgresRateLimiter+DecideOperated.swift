#if Postgres
  import PostgresNIO
  package import RateLimit

  extension PostgresRateLimiter {
    /// A middleware's request whose policies count, shadow or penalise (SPEC 4.2), on limiters of one client, in
    /// one round trip (`ratelimit_decide_operated_v1`): the enforced parts all or nothing, a shadow part never
    /// refusing, a penalty set by the refusal's own statement, and each grant kept given back later by its
    /// booking's id (`counting`).
    ///
    /// | the parts | answered |
    /// |---|---|
    /// | every one limited, within its capacity, no enforced one refused in this process | one statement, as above |
    /// | an enforced part asking one permit refused in this process | refused here, no statement; the other parts undecided |
    /// | any other (no limiting, more than a capacity) | `nil`: the caller decides each |
    /// | the database cannot answer | `nil` (its bookings revoked): each part then answers by its own policy |
    package func decideOperatedJointly(_ parts: [OperatedPart], for key: String) async throws
      -> [UndoableDecision]?
    {
      let limiters = parts.compactMap { $0.limiter as? PostgresRateLimiter }
      guard limiters.count == parts.count else { return nil }
      let keyBytes = try Self.jointKey(limiters, permits: parts.lazy.map(\.permits), key: key)
      // An enforced part refused in this process refuses the request here: no statement, and the other parts,
      // shadows included, are not decided (SPEC 4.3.1: a shadow sent every locally refusable request to the
      // database). A shadow part refused here is decided with the others (it never refuses the request).
      // Each enforced part's refusal in force, read once (one lock, one clock reading a part).
      let inForce = zip(limiters, parts).map { limiter, part in
        part.permits == 1 && !part.isShadow && !limiter.isUnlimited ? limiter.store.refusalInForce(for: keyBytes) : nil
      }
      let refusals = zip(limiters, inForce).map { limiter, held in held.map { limiter.report($0.refusal, at: $0.now) } }
      // A penalty for a refusal by the rule (not a block's) is set by the caller, part by part.
      let penalisedHere = zip(parts, inForce).contains { part, held in
        part.penalty != nil && held.map { !$0.refusal.isBlock } == true
      }
      if refusals.contains(where: { $0 != nil }), !penalisedHere {
        return zip(limiters, refusals).map { limiter, refusal in
          UndoableDecision(refusal ?? limiter.undecided(), undo: nil)
        }
      }
      let decidedElsewhere = zip(limiters, parts).contains { limiter, part in
        limiter.isUnlimited || part.permits > limiter.capacity
      }
      if decidedElsewhere { return nil }
      // Booking ids chosen here, so that a statement this caller gives up on books nothing when it runs late.
      let ids = parts.map { _ in Int64.random(in: (1 << 62)...Int64.max) }
      let asked = parts.indices.map { (limiters[$0].store, parts[$0].permits, ids[$0]) }
      let made = try await answering { () -> [Decision]? in
        try await PostgresPermitStore.decideOperated(
          asked, shadow: parts.map(\.isShadow),
          penalties: parts.map { part in part.penalty.map { Int64(clamping: wholeNanoseconds($0, roundingUp: true)) } },
          key: keyBytes)
      } whenUnavailable: { _ in
        nil
      }
      guard let decisions = made else { return nil }
      let refused = zip(parts, decisions).contains { part, decision in !part.isShadow && !decision.booked }
      let step = JointGiveBack { chosen in
        await PostgresPermitStore.giveBackAll(chosen.map { asked[$0] }, key: keyBytes)
      }
      return parts.indices.map { index in
        let (limiter, part, decision) = (limiters[index], parts[index], decisions[index])
        // A refused request kept nothing: its parts' grants are reports only.
        guard decision.booked && !refused else { return UndoableDecision(limiter.report(decision), undo: nil) }
        return limiter.takeBackable(decision, permits: part.permits, key: keyBytes, joint: (step, index))
      }
    }
  }
#endif
