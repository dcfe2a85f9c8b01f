/// A signed 128-bit integer with saturating arithmetic: the token bucket's credit, exact where floating point
/// would drift. (`Int128` would do, but needs macOS 15 / iOS 18.)
///
/// Credit is kept in "nanosecond-permits": a permit is worth `window` nanoseconds of credit, and every nanosecond
/// that passes adds `limit`. So N per T refills exactly N permits every T, with no rounding at all.
struct Wide: Comparable, Sendable {
  var high: Int64
  var low: UInt64

  static let zero = Wide(high: 0, low: 0)
  static let max = Wide(high: .max, low: .max)
  static let min = Wide(high: .min, low: 0)

  init(high: Int64, low: UInt64) {
    self.high = high
    self.low = low
  }

  init(_ value: Int64) {
    self.init(high: value < 0 ? -1 : 0, low: UInt64(bitPattern: value))
  }

  /// The value as an `Int64`, if it is one.
  var exactInt64: Int64? {
    let value = Int64(bitPattern: low)
    return high == (value < 0 ? -1 : 0) ? value : nil
  }

  /// `a * b`, exactly (two 64-bit factors always fit in 128 bits).
  static func product(_ a: Int64, _ b: Int64) -> Wide {
    let (high, low) = a.multipliedFullWidth(by: b)
    return Wide(high: high, low: low)
  }

  static func < (lhs: Wide, rhs: Wide) -> Bool {
    (lhs.high, lhs.low) < (rhs.high, rhs.low)
  }

  /// Saturating sum.
  static func + (lhs: Wide, rhs: Wide) -> Wide {
    let (low, carry) = lhs.low.addingReportingOverflow(rhs.low)
    let result = Wide(high: lhs.high &+ rhs.high &+ (carry ? 1 : 0), low: low)
    // Signed overflow: both operands have one sign and the result the other.
    if (lhs.high < 0) == (rhs.high < 0) && (result.high < 0) != (lhs.high < 0) {
      return lhs.high < 0 ? .min : .max
    }
    return result
  }

  /// Saturating difference.
  static func - (lhs: Wide, rhs: Wide) -> Wide {
    let (low, borrow) = lhs.low.subtractingReportingOverflow(rhs.low)
    let result = Wide(high: lhs.high &- rhs.high &- (borrow ? 1 : 0), low: low)
    if (lhs.high < 0) != (rhs.high < 0) && (result.high < 0) != (lhs.high < 0) {
      return lhs.high < 0 ? .min : .max
    }
    return result
  }

  /// `self × factor`, saturating at ``max``, for a non-negative `self` and `factor`: a count of permits (past
  /// `Int64`) as credit.
  func multiplied(by factor: Int64) -> Wide {
    let (carried, low) = low.multipliedFullWidth(by: UInt64(factor))
    let (high, overflow) = UInt64(self.high).multipliedReportingOverflow(by: UInt64(factor))
    let (sum, carry) = high.addingReportingOverflow(carried)
    guard !overflow, !carry, sum <= UInt64(Int64.max) else { return .max }
    return Wide(high: Int64(sum), low: low)
  }

  /// `self / divisor` exactly, the quotient in 128 bits, for a non-negative `self` and a positive `divisor`.
  func quotientAndRemainder(dividingBy divisor: Int64) -> (quotient: Wide, remainder: Int64) {
    let (highQuotient, highRemainder) = UInt64(high).quotientAndRemainder(dividingBy: UInt64(divisor))
    let (lowQuotient, remainder) = UInt64(divisor).dividingFullWidth((highRemainder, low))
    return (Wide(high: Int64(highQuotient), low: lowQuotient), Int64(remainder))
  }

  /// `self / divisor` rounded up, for a non-negative `self` and a positive `divisor`; `Int64.max` if it does not
  /// fit ("never").
  func dividedRoundingUp(by divisor: Int64) -> Int64 {
    if high < 0 { return 0 }
    // The quotient fits in 64 bits exactly when the high word is below the divisor.
    guard UInt64(high) < UInt64(divisor) else { return .max }
    let (quotient, remainder) = UInt64(divisor).dividingFullWidth((UInt64(high), low))
    if quotient >= UInt64(Int64.max) { return .max }
    return Int64(quotient) + (remainder > 0 ? 1 : 0)
  }

  /// `self / divisor` rounded down, for a non-negative `self` and a positive `divisor`; saturating.
  func dividedRoundingDown(by divisor: Int64) -> Int64 {
    if high < 0 { return 0 }
    guard UInt64(high) < UInt64(divisor) else { return .max }
    let (quotient, _) = UInt64(divisor).dividingFullWidth((UInt64(high), low))
    return quotient > UInt64(Int64.max) ? .max : Int64(quotient)
  }
}
