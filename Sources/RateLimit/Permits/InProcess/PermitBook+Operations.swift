/// Operating a key (SPEC 4.2), for every in-process store: each operation on the rule's state, and the key
/// after it as `decide` reports a grant. `blockedUntil` is the key's block (`.min`: none).
extension PermitBook {
  /// `peek`: what `decide(permits)` would answer now, decided on copies, so the state is left as it was.
  func peek(_ permits: Int, at now: Int64, blockedUntil: Int64, in state: Rule.State) -> PermitVerdict {
    guard permits <= rule.capacity else {
      return verdict(permits, granted: false, at: now, blockedUntil: blockedUntil, in: state)
    }
    var book = self
    var copy = rule.independentCopy(of: state)
    return book.decide(permits, at: now, blockedUntil: blockedUntil, in: &copy).0
  }

  /// `charge`: `permits` taken at now whatever the limit; reports the key after.
  mutating func charge(
    _ permits: Int, at now: Int64, blockedUntil: Int64, in state: inout Rule.State
  ) -> PermitVerdict {
    if !isUnlimited { rule.charge(permits, at: now, id: newID(cancellable: false), in: &state) }
    return reported(at: now, blockedUntil: blockedUntil, in: state)
  }

  /// `refund`: up to `permits` given back, the latest first; reports the key after.
  func refund(_ permits: Int, at now: Int64, blockedUntil: Int64, in state: inout Rule.State) -> PermitVerdict {
    if !isUnlimited { rule.refund(permits, at: now, in: &state) }
    return reported(at: now, blockedUntil: blockedUntil, in: state)
  }

  /// `reset`: every permit taken at or before now forgotten, and any debt (the caller lifts the block).
  func reset(at now: Int64, in state: inout Rule.State) {
    if !isUnlimited { rule.reset(at: now, in: &state) }
  }

  /// The key after an operation, as `decide` reports a granted request: granted, no `retryAfter`; `remaining`,
  /// `resetAfter` and `effectiveWindow` as they are now.
  func reported(at now: Int64, blockedUntil: Int64, in state: Rule.State) -> PermitVerdict {
    var reported = verdict(1, granted: true, at: now, blockedUntil: blockedUntil, in: state)
    reported.isGranted = true
    reported.retryAfter = nil
    return reported
  }
}
