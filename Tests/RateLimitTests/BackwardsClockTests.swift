import Dispatch
import RateLimitStoreKit
import Testing

@testable import RateLimit

/// A custom clock whose `now` is set back (a wall clock corrected by NTP, say). The limiters count the step as no
/// time passing: they neither crash nor wait for the clock to catch up with where it was.
@Suite struct BackwardsClockTests {
  /// A ``ManualClock`` seen through a setting that can be moved back (the store kit's, which the PostgreSQL suite
  /// uses too).
  typealias SetBackClock = RateLimitStoreKit.SetBackClock

  static let hour = Duration.seconds(3_600)
  static let ms = Duration.milliseconds(1)

  /// T = 1 s. `a` at 0; at 0.5 s the clock goes back an hour and `b` comes; `c` at 1.5 s. Run times are the
  /// manual clock's. Time from 0 to 0.5 s counts as none, so windows end 0.5 s later than they would have, and
  /// not an hour later.
  @Test(arguments: [
    (LimiterKind.throttleLeading, ["a@0", "c@1500"]),
    (.debounceLeading, ["a@0", "c@1500"]),
    (.throttleTrailing, ["b@1500", "c@2500"]),
    (.firstPerDuration, ["a@0", "b@1500", "c@2500"]),
    (.debounceTrailing, ["b@1500", "c@2500"]),
  ])
  func aStepBackCountsAsNoTimePassing(kind: LimiterKind, expected: [String]) {
    let clock = SetBackClock()
    let recorder = Recorder<String>()
    let limiter = makeLimiter(kind, interval: .seconds(1), clock: clock) { recorder.record($0, at: clock.base.now) }
    limiter.call("a")
    clock.base.advance(to: Self.ms * 500)
    clock.goBack(by: Self.hour)
    limiter.call("b")
    clock.base.advance(to: Self.ms * 1_500)
    limiter.call("c")
    clock.base.run()
    #expect(recorder.runs.map { "\($0.value)@\(Int($0.time / Self.ms))" } == expected)
  }

  @Test func aTimerArmedBeforeTheStepStillRuns() {
    // No call after the step: the timer armed for 1 s fires, sees the clock an hour back, and re-arms for the
    // time the quiet period had left (the second between the two readings counts as none).
    let clock = SetBackClock()
    let recorder = Recorder<String>()
    let limiter = makeLimiter(.debounceTrailing, interval: .seconds(1), clock: clock) {
      recorder.record($0, at: clock.base.now)
    }
    limiter.call("a")
    clock.base.advance(to: Self.ms * 500)
    clock.goBack(by: Self.hour)
    clock.base.run()
    #expect(recorder.runs.map(\.value) == ["a"])
    #expect(recorder.runs.map(\.time) == [.seconds(2)])
  }
}
