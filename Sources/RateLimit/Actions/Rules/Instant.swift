/// A point on a clock's time line, as the pure rules see it: a `Duration` since the clock's origin, with
/// comparison and saturating addition that inline into the caller.
///
/// Why not `Duration` itself: its `<`, `==` and `+` are not `@inlinable`, so every comparison on the hot path would
/// be a call into the standard library. `Instant` works on `Duration`'s frozen, public 128-bit representation
/// (`_high`, `_low`: whole attoseconds), which is exactly the same value.
@usableFromInline
struct Instant: Comparable, Sendable {
  /// The same instant as a `Duration` since the clock's origin.
  @usableFromInline let duration: Duration

  @inlinable
  init(_ duration: Duration) {
    self.duration = duration
  }

  /// `DispatchTime`'s uptime as an instant: the same value as `DispatchClock.now`, without a call through the
  /// `RateLimitClock` protocol.
  @inlinable
  init(uptimeNanoseconds: UInt64) {
    let (high, low) = uptimeNanoseconds.multipliedFullWidth(by: 1_000_000_000)
    self.init(Duration(_high: Int64(high), low: low))
  }

  /// The latest representable instant: where a sum that would overflow stops, so that a huge interval (say
  /// `.seconds(Int64.max)`) means "never" instead of a crash.
  // Computed, not `static let`: a global constant is read through a once-check on every access (10 instructions).
  @inlinable static var distantFuture: Instant { Instant(Duration(_high: .max, low: .max)) }

  /// The earliest representable instant; where a subtraction that would overflow stops.
  @inlinable static var distantPast: Instant { Instant(Duration(_high: .min, low: 0)) }

  @inlinable
  static func < (lhs: Instant, rhs: Instant) -> Bool {
    (lhs.duration._high, lhs.duration._low) < (rhs.duration._high, rhs.duration._low)
  }

  @inlinable
  static func == (lhs: Instant, rhs: Instant) -> Bool {
    lhs.duration._high == rhs.duration._high && lhs.duration._low == rhs.duration._low
  }

  /// `instant + interval`, clamped to ``distantFuture`` instead of trapping on overflow. `interval` is never
  /// negative (the initializers refuse negative intervals).
  @inlinable
  static func + (instant: Instant, interval: Duration) -> Instant {
    let (low, carry) = instant.duration._low.addingReportingOverflow(interval._low)
    let (high, overflow) = instant.duration._high.addingReportingOverflow(interval._high)
    let (carried, carryOverflow) = high.addingReportingOverflow(carry ? 1 : 0)
    if overflow || carryOverflow { return distantFuture }
    return Instant(Duration(_high: carried, low: low))
  }

  /// `instant - interval`, clamped to ``distantPast`` instead of trapping. Off the hot path: only used when a
  /// clock is seen going backwards.
  @usableFromInline
  static func - (instant: Instant, interval: Duration) -> Instant {
    subtract(instant.duration, interval).map(Instant.init) ?? distantPast
  }

  /// How far `earlier` lies before `later`: `later - earlier`, clamped to the largest `Duration` instead of
  /// trapping. `earlier` must not be after `later`.
  @usableFromInline
  static func distance(from earlier: Instant, to later: Instant) -> Duration {
    subtract(later.duration, earlier.duration) ?? distantFuture.duration
  }

  /// `lhs - rhs` on the 128-bit representation, or `nil` on overflow.
  private static func subtract(_ lhs: Duration, _ rhs: Duration) -> Duration? {
    let (low, borrow) = lhs._low.subtractingReportingOverflow(rhs._low)
    let (high, overflow) = lhs._high.subtractingReportingOverflow(rhs._high)
    let (borrowed, borrowOverflow) = high.subtractingReportingOverflow(borrow ? 1 : 0)
    if overflow || borrowOverflow { return nil }
    return Duration(_high: borrowed, low: low)
  }
}
