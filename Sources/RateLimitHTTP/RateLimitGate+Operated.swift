import RateLimit

/// The policies 4.2 added to a gate (SPEC 4.2, "The middleware: the rules added"): `counting`, `.shadow` and
/// `penalty`. A gate whose policies are all plain (enforced, every grant kept, no penalty) never comes here.
///
/// | the request | enforced policies | shadow policies | after the route |
/// |---|---|---|---|
/// | every enforced policy grants | keep their grants | a refusal is reported, takes nothing | grants whose `counting` excludes the status are given back; their `r` reports it |
/// | an enforced policy refuses | every grant taken back (a lease released); a refusal by the rule with a `penalty` blocks the key | not decided: nothing taken, counted or sent (SPEC 4.3.1) | nothing |
///
/// A concurrency policy (SPEC 4.4) comes here too: a granted request's leases go to its caller (``Leases``).
extension RateLimitGate {
  /// What a middleware does with one request beside the outcome.
  package struct Decided: Sendable {
    /// What to answer.
    package var outcome: Outcome
    /// The policies whose decision a `WhenUnavailable` fallback answered.
    package var fallbacks: [String] = []
    /// The shadow policies that refused (the request went on).
    package var shadowRefused: [String] = []
    /// The grants the response's status may give back.
    package var settlement = Settlement(grants: [])
    /// The leases a granted request holds until its response is done.
    package var leases = Leases.none
  }

  /// Grants of policies whose `counting` does not keep every response's permits, given back by the status.
  package struct Settlement: Sendable {
    /// Each grant, with its policy's index in the gate.
    let grants: [(index: Int, counting: RateLimitCounting, grant: UndoableDecision)]
    /// The gate that decided, to tell the fields after a give-back; `nil` with nothing to give back.
    let gate: RateLimitGate?
    /// The request's decisions, in policy order, as decided.
    let decisions: [RateLimitDecision]

    init(
      grants: [(index: Int, counting: RateLimitCounting, grant: UndoableDecision)], gate: RateLimitGate? = nil,
      decisions: [RateLimitDecision] = []
    ) {
      (self.grants, self.gate, self.decisions) = (grants, gate, decisions)
    }

    /// Whether there is nothing to give back, whatever the status.
    package var isEmpty: Bool { grants.isEmpty }

    /// Gives back exactly the grants whose policy does not count a response with `status` (in process at once;
    /// `PostgresRateLimiter`s on one client in one round trip, coalesced with their decisions; if that fails,
    /// the permits stay taken, logged).
    package func settle(status: Int) async {
      _ = await settle(status: status, fields: [])
    }

    /// ``settle(status:)``, then the RateLimit fields the response carries instead of `fields` (the granted
    /// outcome's): a policy whose permits were given back reports `r` after the give-back, `r` + its permits, at
    /// most its `limit` (and so at most `q`) (SPEC 4.3.1, "Fields tell what was decided"); everything else as
    /// decided. `fields` as they are when nothing was given back or there are none.
    package func settle(status: Int, fields: [(name: String, value: String)]) async -> [(name: String, value: String)] {
      let givenBack = grants.filter { !$0.counting.keepsPermits(of: status) }
      if givenBack.isEmpty { return fields }
      await UndoableDecision.giveBack(givenBack.map(\.grant))
      guard let gate, !fields.isEmpty else { return fields }
      var after = decisions
      for part in givenBack {
        let decision = after[part.index]
        let (sum, overflow) = decision.remaining.addingReportingOverflow(gate.policies[part.index].permits)
        after[part.index].remaining = max(decision.remaining, min(decision.limit, overflow ? .max : sum))
      }
      return gate.headerFields(after)
    }
  }

  /// Decides every policy undoably, then: an enforced refusal takes every grant back and blocks the keys of the
  /// penalised policies that refused by their rule; otherwise the grants of counting policies wait for the
  /// response's status. Policies that can decide jointly (`PostgresRateLimiter`s on one client) do all of it in
  /// one step.
  func decideOperated(key: String) async throws -> Decided {
    // One policy is one statement already (a penalised one as `decidePenalising`).
    if policies.count > 1, let joint = policies.first?.limiter as? any JointlyDecidingLimiter,
      canDecideJointly(with: joint),
      let made = try await joint.decideOperatedJointly(operatedParts, for: key)
    {
      return try await decided(made, made.map(\.decision), leases: [], key: key, takenBack: true)
    }
    let (made, decisions, leases) = try await decideEach(key: key)
    return try await decided(made, decisions, leases: leases, key: key, takenBack: false)
  }

  /// The policies as one step decides them.
  private var operatedParts: [OperatedPart] {
    policies.map {
      OperatedPart(limiter: $0.limiter, permits: $0.permits, isShadow: $0.mode.isShadow, penalty: $0.penalty)
    }
  }

  /// What the request is, from each policy's decision: granted, the grants of counting policies wait for the
  /// response's status; refused by an enforced policy, every grant is taken back and the penalties set, unless
  /// the one step that decided them did both already (`takenBack`). Refused only by policies that could not
  /// reach their store: ``RateLimitGate/Unavailable``, thrown once the grants are taken back.
  private func decided(
    _ made: [UndoableDecision?], _ decided: [RateLimitDecision], leases: [Lease?], key: String, takenBack: Bool
  ) async throws -> Decided {
    var decisions = decided
    let shadowRefused = zip(policies, decisions).filter { $0.mode.isShadow && !$1.isGranted }.map(\.0.name)
    let refused = zip(policies, decisions).contains { !$0.mode.isShadow && !$1.isGranted }
    guard refused else {
      var grants: [(index: Int, counting: RateLimitCounting, grant: UndoableDecision)] = []
      for (index, (policy, grant)) in zip(policies, made).enumerated() where !policy.counting.keepsEvery {
        if let grant, grant.decision.isGranted { grants.append((index, policy.counting, grant)) }
      }
      var held: [(policy: String, lease: Lease)] = []
      for (policy, lease) in zip(policies, leases) {
        if let lease { held.append((policy.name, lease)) }
      }
      return Decided(
        outcome: outcome(decisions), fallbacks: fallbacks(decisions), shadowRefused: shadowRefused,
        settlement: Settlement(grants: grants, gate: grants.isEmpty ? nil : self, decisions: decisions),
        leases: held.isEmpty ? .none : Leases(held))
    }
    if !takenBack {
      for (index, grant) in made.enumerated() {
        guard let grant, grant.decision.isGranted else { continue }
        decisions[index] = await grant.undo()
      }
      // A penalising limiter blocked the key as it refused; an app's own limiter is blocked now (not for a
      // refusal by a store it could not reach).
      for (index, policy) in policies.enumerated()
      where !decisions[index].isGranted && !policy.mode.isShadow && !Self.isUnreachable(decisions[index]) {
        guard let penalty = policy.penalty, !(policy.limiter is any PenalisingLimiter) else { continue }
        decisions[index] = await penalise(key, by: policy, for: penalty) ?? decisions[index]
      }
    }
    try requireReachable(decisions)
    // An enforced refusal leaves the shadow policies undecided (SPEC 4.3.1): nothing counted for them, even where
    // one statement decided them with the enforced ones (and took their grants back).
    return Decided(outcome: outcome(decisions), fallbacks: fallbacks(decisions))
  }

  /// Blocks `key` on `policy`'s limiter (an app's own `OperableKeyedLimiter`) for `penalty` from now, and returns
  /// the key's decision after (its `retryAfter` the block's end); `nil` if the limiter could not (the refusal
  /// stands as decided). Such a limiter cannot say whether the refusal was a block's: each refusal blocks anew.
  private func penalise(_ key: String, by policy: RateLimitPolicy, for penalty: Duration) async -> RateLimitDecision? {
    guard let operable = policy.limiter as? any OperableKeyedLimiter else { return nil }
    do {
      try await operable.block(key, for: penalty)
      return try await operable.peek(policy.permits, for: key)
    } catch {
      return nil
    }
  }

}
