/// A token bucket's `update` (SPEC 4.2): credit accrued up to the update counts at the old rate; a full bucket is
/// full at the new burst; any other credit (debt included) is kept, as permits, capped by the new burst.
/// Bookings ahead keep their instants.
///
/// Credit is kept in nanosecond-permits, a permit worth T: with a new T the same permits are worth another
/// amount, converted exactly and rounded against the key (credit down, debt up).
extension TokenBucket {
  func updated(to parameters: PermitParameters, at now: Int64) -> Self {
    TokenBucket(
      limit: Int64(parameters.limit), window: Nanoseconds.window(parameters.window),
      burst: parameters.burst ?? parameters.limit)
  }

  func adopt(_ state: inout State, from old: Self, at now: Int64) {
    // On the clock's own line, as every bucket operation (a clock that went back: no time passing).
    let instant = Swift.max(now, state.last)
    let credit = old.tokens(at: instant, in: state)
    state.last = instant
    if credit >= old.full {
      state.tokens = full
      return
    }
    let converted = window == old.window ? credit : Self.convert(credit, from: old.window, to: window)
    state.tokens = Swift.min(converted, full)
  }

  static var adoptsStates: Bool { true }

  /// `credit` (a permit worth `from`) with a permit worth `to`: c × to / from, credit rounded down and debt
  /// rounded up (a key never gains from a conversion), exact in 128 bits: the whole permits are counted in 128
  /// bits too, so a debt of more than `Int64.max` permits (charges) stays owed, saturating only past ±2^127.
  static func convert(_ credit: Wide, from: Int64, to: Int64) -> Wide {
    let negative = credit < .zero
    let magnitude = negative ? Wide.zero - credit : credit
    let (whole, part) = magnitude.quotientAndRemainder(dividingBy: from)
    // part < from: part × to fits, and so does the quotient (below to).
    let scaledPart = Wide.product(part, to)
    let partConverted = negative ? scaledPart.dividedRoundingUp(by: from) : scaledPart.dividedRoundingDown(by: from)
    let result = whole.multiplied(by: to) + Wide(partConverted)
    return negative ? Wide.zero - result : result
  }
}
