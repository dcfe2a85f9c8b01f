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
    /// | every one limited, within its capacity, none refused in this process | one statement, as above |
    /// | any other (no limiting, more than a capacity, a refusal remembered here) | `nil`: the caller decides each |
    /// | the database cannot answer | `nil` (its bookings revoked): each part then answers by its own policy |
    package func decideOperatedJointly(_ parts: [OperatedPart], for key: String) async throws
      -> [UndoableDecision]?
    {
      let limiters = parts.compactMap { $0.limiter as? PostgresRateLimiter }
      guard limiters.count == parts.count else { return nil }
      for (limiter, part) in zip(limiters, parts) { limiter.door.check(part.permits) }
      let keyBytes = try Self.keyBytes(key)
      let decidedElsewhere = zip(limiters, parts).contains { limiter, part in
        limiter.isUnlimited || part.permits > limiter.capacity
          || (part.permits == 1 && limiter.localRefusal(for: keyBytes) != nil)
      }
      if decidedElsewhere { return nil }
      // Booking ids chosen here, so that a statement this caller gives up on books nothing when it runs late.
      let ids = parts.map { _ in Int64.random(in: (1 << 62)...Int64.max) }
      let asked = parts.indices.map { (limiters[$0].store, parts[$0].permits, ids[$0]) }
      let decisions: [Decision]
      do {
        decisions = try await PostgresPermitStore.decideOperated(
          asked, shadow: parts.map(\.isShadow),
          penalties: parts.map { part in part.penalty.map { Int64(clamping: wholeNanoseconds($0, roundingUp: true)) } },
          key: keyBytes)
      } catch is Unavailable {
        return nil
      }
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
