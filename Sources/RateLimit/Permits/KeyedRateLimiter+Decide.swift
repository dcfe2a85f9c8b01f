extension KeyedRateLimiter {
  /// Decides as ``tryAcquire(_:for:)`` does (same answer, same state after) and reports what a response needs
  /// about `key` after it, in one lock and one clock read.
  ///
  /// ```swift
  /// let d = searches.decide(for: "alice")
  /// if !d.isGranted {
  ///   print("retry in", d.retryAfter ?? .zero, "- left", d.remaining)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - permits: At least 1 (anything else traps, naming the value). More than the capacity is refused with
  ///     `retryAfter` `nil`.
  ///   - key: The key; a refusal never leaves a fresh key behind.
  /// - Returns: The decision; ``RateLimitDecision`` shows what each field means for each rule.
  @_specialize(where Key == String)
  public func decide(_ permits: Int = 1, for key: Key) -> RateLimitDecision {
    door.check(permits)
    return door.report(store.decide(permits, for: key, undoable: false).0)
  }

  /// A decision that can be taken back exactly, for a caller that grants only if several limiters all grant
  /// (RateLimitHTTP's policies). Not for apps: use ``decide(_:for:)``.
  package func decideUndoably(_ permits: Int, for key: Key) -> UndoableDecision {
    door.check(permits)
    let (verdict, booking) = store.decide(permits, for: key, undoable: true)
    let decision = door.report(verdict)
    guard verdict.isGranted, let booking else { return UndoableDecision(decision, undo: nil) }
    return UndoableDecision(decision) { [store, door] in
      var after = door.report(store.undo(booking, for: key, permits: permits))
      after.isGranted = true
      return after
    }
  }
}

extension KeyedRateLimiter.Store {
  func decide(_ permits: Int, for key: Key, undoable: Bool) -> (PermitVerdict, Booking?) {
    switch self {
    case .window(let store): store.decide(permits, for: key, undoable: undoable)
    case .bucket(let store): store.decide(permits, for: key, undoable: undoable)
    }
  }

  func undo(_ booking: Booking, for key: Key, permits: Int) -> PermitVerdict {
    switch self {
    case .window(let store): store.undo(booking, for: key, permits: permits)
    case .bucket(let store): store.undo(booking, for: key, permits: permits)
    }
  }
}

/// A decision and the way to take its grant back (RateLimitHTTP's all-or-nothing policies).
package struct UndoableDecision: Sendable {
  /// The decision as made.
  package let decision: RateLimitDecision
  private let undoGrant: (@Sendable () async -> RateLimitDecision)?
  private let giveBackGrant: (@Sendable () async -> Void)?
  /// The step that made this grant with others for one request and gives several back in one, and this grant's
  /// part in it.
  package let joint: (step: JointGiveBack, part: Int)?

  /// A decision; `undo`, if any, takes its grant back and reports the key after it; `giveBack`, if any, is
  /// `undo` for a request that was served (see ``giveBack()``); `joint`, if any, gives it back with the other
  /// grants of its step (``giveBack(_:)``).
  package init(
    _ decision: RateLimitDecision, undo: (@Sendable () async -> RateLimitDecision)?,
    giveBack: (@Sendable () async -> Void)? = nil, joint: (step: JointGiveBack, part: Int)? = nil
  ) {
    self.decision = decision
    self.undoGrant = undo
    self.giveBackGrant = giveBack
    self.joint = joint
  }

  /// Gives a served request's grant back (RateLimitHTTP's `counting`, SPEC 4.2): as ``undo()``, except that a
  /// store that cannot do it now leaves the permits taken (`PostgresRateLimiter` logs it) instead of taking them
  /// back later, as it must for a refused request.
  package func giveBack() async {
    if let giveBackGrant { return await giveBackGrant() }
    _ = await undo()
  }

  /// Gives back every grant of `grants` (a served request's, ``giveBack()``): two or more that one joint step made
  /// (`PostgresRateLimiter`s on one client) in one step, SPEC 4.2's "one round trip"; any other alone.
  package static func giveBack(_ grants: [UndoableDecision]) async {
    var steps: [(step: JointGiveBack, grants: [UndoableDecision])] = []
    for grant in grants {
      guard let step = grant.joint?.step else {
        await grant.giveBack()
        continue
      }
      if let index = steps.firstIndex(where: { $0.step === step }) {
        steps[index].grants.append(grant)
      } else {
        steps.append((step, [grant]))
      }
    }
    for (step, grants) in steps {
      if grants.count == 1 {
        await grants[0].giveBack()
      } else {
        await step.giveBack(parts: grants.compactMap { $0.joint?.part })
      }
    }
  }

  /// All or nothing over `made` (decisions in policy order, `nil` where a limiter cannot undo): if any refused,
  /// every grant is taken back and reported as after it; otherwise the decisions as made. RateLimitHTTP's mixed
  /// policies and `PostgresRateLimiter`'s joint decision answered by the parts' policies share it.
  package static func allOrNothing(_ made: [UndoableDecision?], _ decisions: [RateLimitDecision]) async
    -> [RateLimitDecision]
  {
    guard decisions.contains(where: { !$0.isGranted }) else { return decisions }
    var answers = decisions
    for (index, decision) in made.enumerated() {
      guard let decision, decision.decision.isGranted else { continue }
      answers[index] = await decision.undo()
    }
    return answers
  }

  /// Takes back every grant in `made` (a limiter threw: nothing of the request stays taken).
  package static func undoGrants(_ made: [UndoableDecision?]) async {
    for case let decision? in made where decision.decision.isGranted { _ = await decision.undo() }
  }

  /// Takes the grant back exactly (its permits, whatever other grants of the key came since), once; returns the
  /// decision with the key's state after it (`isGranted` stays this limiter's own answer). A refusal comes back
  /// as it was. In process it never suspends; `PostgresRateLimiter` revokes the booking in one round trip.
  package func undo() async -> RateLimitDecision {
    guard let undoGrant else { return decision }
    return await undoGrant()
  }
}

/// One step that decided several limiters' grants for one request and gives any of them back in one
/// (`PostgresRateLimiter`'s joint decision: one statement, SPEC 4.2). Each grant it made carries it
/// (``UndoableDecision/joint``).
package final class JointGiveBack: Sendable {
  private let giveBackParts: @Sendable ([Int]) async -> Void

  /// A step whose `giveBack` gives back the grants of the parts it is given (their indices in the step).
  package init(_ giveBack: @escaping @Sendable (_ parts: [Int]) async -> Void) {
    self.giveBackParts = giveBack
  }

  /// Gives back the grants of `parts`, in one step.
  package func giveBack(parts: [Int]) async {
    await giveBackParts(parts)
  }
}
