/// A rule's decision in whole nanoseconds, before it becomes a ``RateLimitDecision``: computed under the
/// limiter's lock, from the state the decision left, or read from the database's answer (`PostgresRateLimiter`),
/// so that every store reports through this one form.
package struct PermitVerdict: Sendable, Equatable {
  package var isGranted: Bool
  /// Whole permits a request made now would get at once.
  package var remaining: Int
  /// Nanoseconds until the key is at rest.
  package var resetAfter: Int64
  /// Refused and possible: nanoseconds until the same request would be granted.
  package var retryAfter: Int64?
  /// Nanoseconds until one more permit, once `remaining` are taken now (``RateLimitDecision/effectiveWindow``).
  package var effectiveWindow: Int64
  /// The parameters of the rule that decided, when the store read them with its state (an in-process store);
  /// `nil`: the door's.
  package var parameters: PermitParameters?

  /// A verdict with every field given.
  package init(
    isGranted: Bool, remaining: Int, resetAfter: Int64, retryAfter: Int64?, effectiveWindow: Int64,
    parameters: PermitParameters? = nil
  ) {
    (self.isGranted, self.remaining, self.resetAfter, self.retryAfter) = (isGranted, remaining, resetAfter, retryAfter)
    (self.effectiveWindow, self.parameters) = (effectiveWindow, parameters)
  }

  /// The public form, with the rule's quota, window and quota window.
  package func decision(limit: Int, window: Duration, quotaWindow: Duration) -> RateLimitDecision {
    RateLimitDecision(
      isGranted: isGranted, limit: limit, window: window, remaining: remaining,
      resetAfter: .nanoseconds(resetAfter), retryAfter: retryAfter.map(Duration.nanoseconds),
      effectiveWindow: .nanoseconds(effectiveWindow), quotaWindow: quotaWindow)
  }
}

extension PermitBook {
  /// `tryAcquire`, then what a response needs about the state it left. `permits` is at most the capacity.
  /// With `undoable`, a grant is booked under a cancellable id and returned, so that `undo(_:at:in:)` can take
  /// it back exactly.
  mutating func decide(
    _ permits: Int, at now: Int64, undoable: Bool = false, blockedUntil: Int64 = .min, in state: inout Rule.State
  ) -> (PermitVerdict, Booking?) {
    if now < blockedUntil {
      return (verdict(permits, granted: false, at: now, blockedUntil: blockedUntil, in: state), nil)
    }
    if isUnlimited {
      return (
        PermitVerdict(
          isGranted: true, remaining: rule.capacity, resetAfter: 0, retryAfter: nil, effectiveWindow: 0,
          parameters: parameters), nil
      )
    }
    let id = newID(cancellable: undoable)
    let booking = rule.reserve(
      permits, at: now, forgetting: now, notAfter: now, id: id, cancellable: undoable, in: &state)
    return (verdict(permits, granted: booking != nil, at: now, in: state), booking)
  }

  /// What a response needs about `state` at `now`, after a decision that granted or not. While the key is
  /// blocked: nothing remains, and every wait runs from the block's end, as a request booked now would.
  func verdict(
    _ permits: Int, granted: Bool, at now: Int64, blockedUntil: Int64 = .min, in state: Rule.State
  ) -> PermitVerdict {
    if now < blockedUntil {
      let retry = permits > rule.capacity ? nil : retryAfter(permits, at: now, blockedUntil: blockedUntil, in: state)
      let rest = isUnlimited ? blockedUntil : Swift.max(blockedUntil, rule.restAt(at: blockedUntil, in: state))
      return PermitVerdict(
        isGranted: false, remaining: 0, resetAfter: Nanoseconds.subtracting(rest, now), retryAfter: retry,
        effectiveWindow: retryAfter(1, at: now, blockedUntil: blockedUntil, in: state), parameters: parameters)
    }
    if isUnlimited {
      return PermitVerdict(
        isGranted: granted, remaining: rule.capacity, resetAfter: 0, retryAfter: nil, effectiveWindow: 0,
        parameters: parameters)
    }
    let retry: Int64? = granted || permits > rule.capacity ? nil : retryAfter(permits, at: now, in: state)
    let report = rule.report(at: now, in: state)
    let effective = report.effectiveWindow ?? retryAfter(1, at: now, in: state)
    return PermitVerdict(
      isGranted: granted, remaining: report.remaining,
      resetAfter: Swift.max(0, Nanoseconds.subtracting(report.restAt, now)), retryAfter: retry,
      effectiveWindow: Swift.max(0, effective), parameters: parameters)
  }

  /// Takes back a grant `decide(_:at:undoable:in:)` made, whenever: as if it had never been made, less what
  /// later bookings counted on (token bucket).
  func undo(_ booking: Booking, at now: Int64, in state: inout Rule.State) {
    if isUnlimited { return }
    rule.undo(booking, at: now, in: &state)
  }
}
