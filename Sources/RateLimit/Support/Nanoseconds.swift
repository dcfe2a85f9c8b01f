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
