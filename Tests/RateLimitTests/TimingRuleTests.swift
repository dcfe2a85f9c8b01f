import Testing

@testable import RateLimit

/// The pure rules, driven directly: no engine, no clock, no queue.
@Suite struct TimingRuleTests {
  let t = Duration.seconds(3)

  /// The instant `seconds` after the origin.
  func at(_ seconds: Int64) -> Instant { Instant(.seconds(seconds)) }

  @Test func throttleLeadingNeedsNoTimer() {
    var rule = ThrottleRule<Int>(mode: .leading, interval: t)
    #expect(rule.called(at: at(0), with: 1) == 1)
    #expect(rule.called(at: at(2), with: 2) == nil)
    #expect(rule.deadline == nil)
    #expect(rule.called(at: at(3), with: 3) == 3)
    #expect(rule.flushed(at: at(4)) == nil)
  }

  @Test func throttleTrailingHoldsTheLatestUntilTheWindowsEnd() {
    var rule = ThrottleRule<Int>(mode: .trailing, interval: t)
    #expect(rule.called(at: at(1), with: 1) == nil)
    #expect(rule.called(at: at(2), with: 2) == nil)
    #expect(rule.deadline == at(4))
    let run = rule.deadlineReached()
    #expect(run?.value == 2)
    #expect(run?.time == at(4))
    #expect(rule.deadline == nil)
    #expect(!rule.isPending)
  }

  @Test func firstPerDurationOpensTheNextWindowFromTheHeldRun() {
    var rule = ThrottleRule<Int>(mode: .firstPerDuration, interval: t)
    #expect(rule.called(at: at(0), with: 1) == 1)
    #expect(rule.deadline == nil)
    #expect(rule.called(at: at(1), with: 2) == nil)
    #expect(rule.deadline == at(3))
    #expect(rule.deadlineReached()?.time == at(3))
    #expect(rule.called(at: at(5), with: 3) == nil)
    #expect(rule.deadline == at(6))
    #expect(rule.flushed(at: at(5)) == 3)
    #expect(rule.windowEnd == at(8))
  }

  @Test func debounceTrailingMovesItsDeadlineAndCapsItWithMaxWait() {
    var rule = DebounceRule<Int>(mode: .trailing, interval: t, maxWait: .seconds(5))
    #expect(rule.called(at: at(0), with: 1) == nil)
    #expect(rule.deadline == at(3))
    #expect(rule.called(at: at(2), with: 2) == nil)
    #expect(rule.deadline == at(5))
    #expect(rule.called(at: at(4), with: 3) == nil)
    #expect(rule.deadline == at(5))
    let run = rule.deadlineReached()
    #expect(run?.value == 3)
    #expect(run?.time == at(5))
    #expect(rule.quietEnd == at(7))
    #expect(rule.maxWaitEnd == at(10))
  }

  @Test func aRuleIsAValueThoughItsMaxWaitIsKeptOutOfLine() {
    var rule = DebounceRule<Int>(mode: .trailing, interval: t, maxWait: .seconds(5))
    _ = rule.called(at: at(0), with: 1)
    let copy = rule
    _ = rule.deadlineReached()  // ends the burst of `rule` (no maxWait anchor any more), not of `copy`
    #expect(rule.maxWaitEnd == .distantFuture)
    #expect(copy.maxWaitEnd == at(5))
    #expect(copy.deadline == at(3))
  }

  @Test func debounceMaxWaitBelowIntervalCountsAsInterval() {
    #expect(DebounceRule<Int>(mode: .trailing, interval: t, maxWait: .seconds(1)).waitLimit == t)
    #expect(DebounceRule<Int>(mode: .trailing, interval: t, maxWait: .seconds(4)).waitLimit == .seconds(4))
    #expect(DebounceRule<Int>(mode: .leading, interval: t, maxWait: nil).waitLimit == nil)
  }

  @Test func debounceLeadingRestartsTheQuietPeriodOnEveryCall() {
    var rule = DebounceRule<Int>(mode: .leading, interval: t, maxWait: nil)
    #expect(rule.called(at: at(0), with: 1) == 1)
    #expect(rule.called(at: at(2), with: 2) == nil)
    #expect(rule.called(at: at(4), with: 3) == nil)
    #expect(rule.called(at: at(7), with: 4) == 4)
    #expect(rule.deadline == nil)
  }

  @Test func instantsCompareAndAddLikeDurationsAndSaturateInsteadOfTrapping() {
    #expect(at(1) + .seconds(2) == at(3))
    #expect(Instant(.nanoseconds(1) / 4) + .nanoseconds(1) / 4 == Instant(.nanoseconds(1) / 2))
    #expect(at(-5) + .seconds(2) == at(-3))
    #expect(Instant(.nanoseconds(-1)) + .nanoseconds(1) == at(0))
    #expect(at(-1) < at(0))
    #expect(!(at(2) < at(2)))
    #expect(Instant.distantFuture + .seconds(1) == .distantFuture)
    #expect(Instant(.seconds(Int64.max)) + .seconds(Int64.max) == Instant(.seconds(Int64.max) * 2))
    let durations: [Duration] = [
      .seconds(-2), .nanoseconds(-1), .zero, .nanoseconds(1) / 3, .seconds(1), .seconds(Int64.max),
    ]
    for a in durations {
      for b in durations {
        #expect((Instant(a) < Instant(b)) == (a < b))
        #expect((Instant(a) == Instant(b)) == (a == b))
      }
    }
  }
}
