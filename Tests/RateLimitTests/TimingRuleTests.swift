import RateLimitStoreKit
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

/// The engine's fast path, `calledMidBurst`, against the full `called`: whenever it takes a call, the rule ends
/// up exactly as `called` leaves it (nothing due before the call, nothing run, nothing due after), and when it does
/// not, it changed nothing. Random calls, timer deadlines and flushes, every mode, with and without maxWait.
@Suite struct FastPathTests {
  /// What a rule's behaviour depends on from now on: the held value, the deadline, and whether it is at rest.
  func snapshot(_ rule: some TimingRule<Int>, _ value: Int?, at now: Int64) -> String {
    let rest = (0..<12).map { rule.isAtRest(at: Instant(.seconds(now + $0))) ? "r" : "." }.joined()
    return "\(value.map(String.init) ?? "-") \(String(describing: rule.deadline)) \(rest)"
  }

  func check<Rule: TimingRule<Int>>(_ make: () -> Rule, held: (Rule) -> Int?, seed: UInt64) {
    var generator = SeededGenerator(seed: seed)
    var taken = 0
    for _ in 0..<200 {
      var rule = make()
      var now: Int64 = 0
      for step in 0..<40 {
        now += Int64(generator.next() % 3)
        let instant = Instant(.seconds(now))
        // Usually the timer has run the work due; sometimes it is late, and the call finds it due.
        if generator.next() % 4 != 0, let deadline = rule.deadline, deadline <= instant { _ = rule.deadlineReached() }
        if generator.next() % 10 == 0 { _ = rule.flushed(at: instant) }
        var fast = rule
        var full = rule
        let before = snapshot(rule, held(rule), at: now)
        var displacedFast: Int?
        var displacedFull: Int?
        if fast.calledMidBurst(at: instant, with: step, reducing: nil, displaced: &displacedFast) {
          taken += 1
          #expect(
            full.called(at: instant, with: step, reducing: nil, mayRunAtOnce: true, displaced: &displacedFull) == nil)
          #expect(full.deadline.map { instant < $0 } ?? true, "nothing due after the call")
          #expect(snapshot(fast, held(fast), at: now) == snapshot(full, held(full), at: now))
          #expect(displacedFast == displacedFull)
          rule = fast
        } else {
          #expect(snapshot(fast, held(fast), at: now) == before, "a call not taken changes nothing")
          // The engine's full path: work due first, then the call.
          rule = full
          if let deadline = rule.deadline, deadline <= instant { _ = rule.deadlineReached() }
          _ = rule.called(at: instant, with: step, reducing: nil, mayRunAtOnce: true, displaced: &displacedFull)
        }
      }
    }
    #expect(taken > 100, "the fast path takes calls in every mode")
  }

  @Test(arguments: ThrottleMode.allCases)
  func throttle(_ mode: ThrottleMode) {
    check(
      { ThrottleRule<Int>(mode: mode, interval: .seconds(3)) }, held: { $0.held.value }, seed: 1)
  }

  @Test(arguments: [(DebounceMode.leading, nil), (.trailing, nil), (.leading, 5), (.trailing, 5), (.trailing, 2)])
  func debounce(_ mode: DebounceMode, _ maxWait: Int64?) {
    check(
      { DebounceRule<Int>(mode: mode, interval: .seconds(3), maxWait: maxWait.map(Duration.seconds)) },
      held: { $0.held.value }, seed: 2)
  }
}
