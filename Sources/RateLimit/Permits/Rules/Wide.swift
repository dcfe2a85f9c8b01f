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

/// Whole nanoseconds, the unit of every permit rule: saturating helpers on `Int64`.
enum Nanoseconds {
  /// A limiter's `window` as its rule keeps it: whole nanoseconds, rounded up, and at least 1 (a zero window means
  /// no limiting and never reaches the rules).
  static func window(_ window: Duration) -> Int64 {
    Swift.max(1, roundingUp(window))
  }

  /// `duration` in whole nanoseconds, rounded up ("booking instants that fall between nanoseconds are rounded up
  /// to the next nanosecond"), saturating at the ends of `Int64`.
  static func roundingUp(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = components(duration)
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    // attoseconds in 0..<1e18 after normalization.
    let nanos = attoseconds / 1_000_000_000 + (attoseconds % 1_000_000_000 > 0 ? 1 : 0)
    let (sum, sumOverflow) = whole.addingReportingOverflow(nanos)
    return sumOverflow ? .max : sum
  }

  /// `duration` in whole nanoseconds, rounded down, saturating.
  static func roundingDown(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = components(duration)
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (sum, sumOverflow) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
    return sumOverflow ? .max : sum
  }

  /// Whole seconds (floor) and the attoseconds left over (0 ..< 10^18), saturating the seconds: unlike
  /// `Duration.components`, never traps on a duration whose seconds do not fit in `Int64`.
  private static func components(_ duration: Duration) -> (Int64, Int64) {
    let perSecond: Int64 = 1_000_000_000_000_000_000
    let high = duration._high
    // Far out of `Int64` seconds: saturate.
    if high >= perSecond / 2 { return (.max, 0) }
    if high < -(perSecond / 2) { return (.min, 0) }
    let negative = high < 0
    // Magnitude of the 128-bit value.
    var magHigh = UInt64(bitPattern: high)
    var magLow = duration._low
    if negative {
      magLow = ~magLow &+ 1
      magHigh = ~magHigh &+ (magLow == 0 ? 1 : 0)
    }
    let (quotient, remainder) = UInt64(perSecond).dividingFullWidth((magHigh, magLow))
    if !negative { return (Int64(quotient), Int64(remainder)) }
    if remainder == 0 { return (-Int64(quotient), 0) }
    return (-Int64(quotient) - 1, perSecond - Int64(remainder))
  }

  static func adding(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? (b < 0 ? .min : .max) : sum
  }

  static func subtracting(_ a: Int64, _ b: Int64) -> Int64 {
    let (difference, overflow) = a.subtractingReportingOverflow(b)
    return overflow ? (b < 0 ? .max : .min) : difference
  }
}
