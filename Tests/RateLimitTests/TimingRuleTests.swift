import Testing

@testable import RateLimit

/// The pure rules, driven directly: no engine, no clock, no queue.
@Suite struct TimingRuleTests {
  let t = Duration.seconds(3)

  @Test func throttleLeadingNeedsNoTimer() {
    var rule = ThrottleRule<Int>(mode: .leading, interval: t)
    #expect(rule.called(at: .zero, with: 1) == 1)
    #expect(rule.called(at: .seconds(2), with: 2) == nil)
    #expect(rule.deadline == nil)
    #expect(rule.called(at: .seconds(3), with: 3) == 3)
    #expect(rule.flushed(at: .seconds(4)) == nil)
  }

  @Test func throttleTrailingHoldsTheLatestUntilTheWindowsEnd() {
    var rule = ThrottleRule<Int>(mode: .trailing, interval: t)
    #expect(rule.called(at: .seconds(1), with: 1) == nil)
    #expect(rule.called(at: .seconds(2), with: 2) == nil)
    #expect(rule.deadline == .seconds(4))
    let run = rule.deadlineReached()
    #expect(run?.value == 2)
    #expect(run?.time == .seconds(4))
    #expect(rule.deadline == nil)
    #expect(!rule.isPending)
  }

  @Test func firstPerDurationOpensTheNextWindowFromTheHeldRun() {
    var rule = ThrottleRule<Int>(mode: .firstPerDuration, interval: t)
    #expect(rule.called(at: .zero, with: 1) == 1)
    #expect(rule.deadline == nil)
    #expect(rule.called(at: .seconds(1), with: 2) == nil)
    #expect(rule.deadline == .seconds(3))
    #expect(rule.deadlineReached()?.time == .seconds(3))
    #expect(rule.called(at: .seconds(5), with: 3) == nil)
    #expect(rule.deadline == .seconds(6))
    #expect(rule.flushed(at: .seconds(5)) == 3)
    #expect(rule.windowEnd == .seconds(8))
  }

  @Test func debounceTrailingMovesItsDeadlineAndCapsItWithMaxWait() {
    var rule = DebounceRule<Int>(mode: .trailing, interval: t, maxWait: .seconds(5))
    #expect(rule.called(at: .zero, with: 1) == nil)
    #expect(rule.deadline == .seconds(3))
    #expect(rule.called(at: .seconds(2), with: 2) == nil)
    #expect(rule.deadline == .seconds(5))
    #expect(rule.called(at: .seconds(4), with: 3) == nil)
    #expect(rule.deadline == .seconds(5))
    let run = rule.deadlineReached()
    #expect(run?.value == 3)
    #expect(run?.time == .seconds(5))
    #expect(rule.quietEnd == .seconds(7))
    #expect(rule.maxWaitEnd == .seconds(10))
  }

  @Test func debounceMaxWaitBelowIntervalCountsAsInterval() {
    #expect(DebounceRule<Int>(mode: .trailing, interval: t, maxWait: .seconds(1)).maxWait == t)
    #expect(DebounceRule<Int>(mode: .leading, interval: t, maxWait: nil).maxWait == nil)
  }

  @Test func debounceLeadingRestartsTheQuietPeriodOnEveryCall() {
    var rule = DebounceRule<Int>(mode: .leading, interval: t, maxWait: nil)
    #expect(rule.called(at: .zero, with: 1) == 1)
    #expect(rule.called(at: .seconds(2), with: 2) == nil)
    #expect(rule.called(at: .seconds(4), with: 3) == nil)
    #expect(rule.called(at: .seconds(7), with: 4) == 4)
    #expect(rule.deadline == nil)
  }

  @Test func saturatingAdditionNeverTraps() {
    #expect(Duration.seconds(1).saturatingAdding(.seconds(2)) == .seconds(3))
    #expect(Duration.saturatedMax.saturatingAdding(.seconds(1)) == .saturatedMax)
    #expect(Duration.seconds(Int64.max).saturatingAdding(.seconds(Int64.max)) == .saturatedMax)
  }
}
