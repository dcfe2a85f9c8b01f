/// Operating a key of a token bucket (SPEC 4.2): its credit changed at once.
///
/// | operation | the credit |
/// |---|---|
/// | `charge(n)` | less n permits, below zero if need be (debt, paid at N per T) |
/// | `refund(n)` | up to n permits more, never above a full bucket less the permits booked ahead |
/// | `reset` | a full bucket less the permits booked ahead |
///
/// Each is taken at `now`, or at the bucket's `last` if that is later (a booking made during a block counted the
/// credit up to the block's end; a clock that went back counts as no time passing). No sum traps or wraps (SPEC
/// 4.3.1): the credit and the permits booked ahead are counted exactly in 128 bits, saturating only at ±2^127
/// nanosecond-permits, so two `charge(Int.max)` leave a 5-per-minute bucket refused past the 292-year horizon
/// and two `refund(Int.max)` pay that debt back exactly.
extension TokenBucket {
  func charge(_ permits: Int, at now: Int64, id: UInt64, in state: inout State) {
    guard permits > 0 else { return }
    let instant = Swift.max(now, state.last)
    state.tokens = tokens(at: instant, in: state) - Wide.product(Int64(permits), window)
    state.last = instant
  }

  func refund(_ permits: Int, at now: Int64, in state: inout State) {
    guard permits > 0 else { return }
    let instant = Swift.max(now, state.last)
    let ceiling = full - state.ahead.permits(after: now).multiplied(by: window)
    let current = tokens(at: instant, in: state)
    let raised = Swift.min(current + Wide.product(Int64(permits), window), ceiling)
    guard current < raised else { return }
    state.tokens = raised
    state.last = instant
  }

  func reset(at now: Int64, in state: inout State) {
    state.ahead.removeAll(notAfter: now)
    state.tokens = full - state.ahead.permits(after: now).multiplied(by: window)
    state.last = now
    if state.ahead.isEmpty { state.lastEvent = .min }
  }

  /// A value: its bookings ahead are a `BookingLog`, copied on write.
  func independentCopy(of state: State) -> State { state }
}
