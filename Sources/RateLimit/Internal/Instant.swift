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

  /// The latest representable instant: where a sum that would overflow stops, so that a huge interval (say
  /// `.seconds(Int64.max)`) means "never" instead of a crash.
  @usableFromInline static let distantFuture = Instant(Duration(_high: .max, low: .max))

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
}
