/// A clock's steps back, summed: what puts its readings on a time line that never goes back, where a step back
/// counts as no time passing (SPEC 3.0 "Clock going back", 4.0.1). The permit limiters keep one
/// (``PermitBook``); so does a `PostgresRateLimiter` on a sliding window with `.clock(c)`, which sends the
/// database its readings on that line, so that a key answers as a `KeyedRateLimiter`'s would.
///
/// ```
/// clock       0   5 │ -95  -90      (steps back 100 at 5)
/// time line   0   5 │   5   10      (stepsBack 100)
/// ```
package struct ClockSteps: Sendable {
  private var latestReading: Int64 = .min
  /// The highest reading before the latest step back (kept on the step, off the path of a reading that goes on).
  private var peak: Int64 = .min
  /// Every step back the clock took, summed.
  package private(set) var stepsBack: Int64 = 0

  /// The highest reading taken in so far.
  package var highestReading: Int64 { Swift.max(peak, latestReading) }

  package init() {}

  /// Takes in a clock reading: returns how far the clock went back since the previous one (0 if it did not).
  package mutating func read(_ reading: Int64) -> Int64 {
    defer { latestReading = reading }
    guard reading < latestReading else { return 0 }
    peak = Swift.max(peak, latestReading)
    let jump = Nanoseconds.subtracting(latestReading, reading)
    stepsBack = Nanoseconds.adding(stepsBack, jump)
    return jump
  }

  /// `reading` on the time line (saturating).
  package func onTimeLine(_ reading: Int64) -> Int64 { Nanoseconds.adding(reading, stepsBack) }

  /// An instant on the time line, on the clock (saturating).
  package func onClock(_ instant: Int64) -> Int64 { Nanoseconds.subtracting(instant, stepsBack) }
}
