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
    package func _decideOperatedJointly(_ parts: [_OperatedPart], for key: String) async throws
      -> [_UndoableDecision]?
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
      do {
        try await prepareIfNeeded()
        let statement = DecideOperatedStatement(
          parts: DecideAllStatement(
            zip(limiters, parts).map { ($0, $1.permits) }, key: keyBytes, ids: ids, lockTimeout: lockTimeout),
          shadow: parts.map(\.isShadow),
          penalties: parts.map { part in
            part.penalty.map { Int64(clamping: wholeNanoseconds($0, roundingUp: true)) } ?? 0
          })
        let sent = limiters.map { $0.localClock.now }
        let rows = try await rows(of: statement, count: parts.count)
        let refused = zip(parts, rows).contains { part, row in !part.isShadow && !row.booked }
        let step = _JointGiveBack { chosen in
          await Self.giveBack(chosen.map { (limiters[$0], ids[$0], parts[$0].permits) }, key: keyBytes)
        }
        return parts.indices.map { index in
          let (limiter, part, row) = (limiters[index], parts[index], rows[index])
          if part.permits == 1 && !row.booked {
            // Refused on its own: refused here until it can grant one permit; a penalised part's refusal is a
            // block's (its own, or one in force).
            limiter.localRefusals?.refuse(
              keyBytes, answeredAt: row.now, time: row.time, restAt: row.restAt, sent: sent[index],
              isBlock: part.penalty != nil)
          }
          let decision = Decision(
            time: row.time, now: row.now, id: ids[index], booked: row.booked, remaining: row.remaining,
            restAt: row.restAt, effective: row.effective)
          // A refused request kept nothing: its parts' grants are reports only.
          guard row.booked && !refused else { return _UndoableDecision(limiter.report(decision), undo: nil) }
          return limiter.takeBackable(decision, permits: part.permits, key: keyBytes, joint: (step, index))
        }
      } catch let error as Unavailable {
        if error.wasSent {
          for (limiter, id) in zip(limiters, ids) { limiter.revokeLater(id, key: keyBytes) }
        }
        return nil
      }
    }

    /// A served request's grants, made by one joint decision, given back exactly in one statement
    /// (`ratelimit_give_back_all_v1`, SPEC 4.2's "one round trip"); if the database cannot answer, they stay
    /// taken (logged), as one grant's give-back does.
    static func giveBack(_ grants: [(limiter: PostgresRateLimiter, id: Int64, permits: Int)], key: ByteBuffer) async {
      guard let first = grants.first?.limiter else { return }
      for grant in grants { grant.limiter.localRefusals?.forget(key) }
      let statement = GiveBackAllStatement(
        parts: DecideAllStatement(
          grants.map { ($0.limiter, $0.permits) }, key: key, ids: grants.map(\.id), lockTimeout: first.lockTimeout))
      do {
        _ = try await first.rows(of: statement, count: 1)
      } catch {
        first.logger.debug(
          "rate limit: a served request's permits could not be given back; they stay taken",
          metadata: ["ratelimit.names": "\(grants.map(\.limiter.name))"])
      }
    }
  }
#endif
