import Dispatch
import Testing

@testable import RateLimit

/// SPEC's two debounce rules, with and without `maxWait`, timeline by timeline on a ``ManualClock``.
/// See ``Timeline`` for the notation.
@Suite struct DebouncerTests {
  static let trailing: [Timeline] = [
    Timeline(name: "a single call runs T later", interval: 3, events: "a", runs: ". . . a"),
    Timeline(
      name: "a burst runs its latest value T after its last call", interval: 3, events: "a b c", runs: ". . . . . c"),
    Timeline(name: "a gap of exactly T counts as quiet", interval: 3, events: "a . . b", runs: ". . . a . . b"),
    Timeline(name: "a gap of T-1 restarts the quiet period", interval: 3, events: "a . b", runs: ". . . . . b"),
    Timeline(name: "a gap of T+1 ends the burst", interval: 3, events: "a . . . b", runs: ". . . a . . . b"),
    Timeline(
      name: "calls every T-1 hold the action back for ever", interval: 3, events: "a . b . c . d",
      runs: ". . . . . . . . . d"),
    Timeline(
      name: "a long idle gap", interval: 3, events: "a b . . . . . . . . . . c", runs: ". . . . b . . . . . . . . . . c"
    ),
    Timeline(name: "zero interval runs every call in order", interval: 0, events: "ab c . d", runs: "ab c . d"),
    Timeline(
      name: "maxWait runs the latest value at anchor + M, then anchors at that run", interval: 3, maxWait: 5,
      events: "a b c d e f g h i j", runs: ". . . . . e . . . . j"),
    Timeline(
      name: "maxWait below T counts as T", interval: 3, maxWait: 1, events: "a b c d e f g h i j",
      runs: ". . . c . . f . . i . . j"),
    Timeline(
      name: "maxWait equal to T", interval: 3, maxWait: 3, events: "a b c d e f g h i j",
      runs: ". . . c . . f . . i . . j"),
    Timeline(
      name: "maxWait above a quiet burst changes nothing", interval: 3, maxWait: 10, events: "a b c",
      runs: ". . . . . c"),
    Timeline(
      name: "after a maxWait run with nothing held, the quiet period ends silently", interval: 3, maxWait: 4,
      events: "a b c d . . . e", runs: ". . . . d . . . . . e"),
    Timeline(
      name: "the first call after idle is the new anchor", interval: 3, maxWait: 5, events: "a . . . b c d e f",
      runs: ". . . a . . . . . f"),
    Timeline(
      name: "zero interval with maxWait runs every call", interval: 0, maxWait: 2, events: "ab c", runs: "ab c"),
    Timeline(name: "flush runs the held value now", interval: 3, events: "a b F", runs: ". . b"),
    Timeline(
      name: "after flush the next call starts a new burst and anchor", interval: 3, maxWait: 4,
      events: "a b F c d e f g h", runs: ". . b . . . . f . . . h"),
    Timeline(name: "flush with nothing held does nothing", interval: 3, events: "F a . . . F", runs: ". . . . a"),
    Timeline(name: "cancel drops the held value", interval: 3, events: "a b C . c", runs: ". . . . . . . c"),
    Timeline(
      name: "cancel forgets the maxWait anchor", interval: 3, maxWait: 4, events: "a b C c d e f g",
      runs: ". . . . . . . f . . g"),
    Timeline(name: "invalidate drops the held value", interval: 3, events: "a b I . c", runs: ""),
    Timeline(name: "a flushed value runs even if invalidate follows", interval: 3, events: "a FI b", runs: ". a"),
    Timeline(name: "dropping the debouncer drops the held value", interval: 3, events: "a D", runs: ""),
  ]

  static let leading: [Timeline] = [
    Timeline(name: "a single call runs at once", interval: 3, events: "a", runs: "a"),
    Timeline(name: "a burst runs its first call only", interval: 3, events: "a b c", runs: "a"),
    Timeline(name: "a gap of exactly T counts as quiet", interval: 3, events: "a . . b", runs: "a . . b"),
    Timeline(name: "a gap of T-1 is not quiet", interval: 3, events: "a . b", runs: "a"),
    Timeline(name: "a gap of T+1 is quiet", interval: 3, events: "a . . . b", runs: "a . . . b"),
    Timeline(
      name: "every call restarts the quiet period, run or not", interval: 3, events: "a . b . c . d . e",
      runs: "a"),
    Timeline(
      name: "quiet is measured from the last call, not the last run", interval: 3, events: "a . b . . c",
      runs: "a . . . . c"),
    Timeline(
      name: "a long idle gap", interval: 3, events: "a b . . . . . . . . . . c d", runs: "a . . . . . . . . . . . c"),
    Timeline(name: "zero interval runs every call in order", interval: 0, events: "ab c . d", runs: "ab c . d"),
    Timeline(
      name: "maxWait runs a call M after the last run", interval: 3, maxWait: 4, events: "a b c d e f g h i j",
      runs: "a . . . e . . . i"),
    Timeline(
      name: "maxWait below T counts as T", interval: 3, maxWait: 1, events: "a b c d e f g h i j",
      runs: "a . . d . . g . . j"),
    Timeline(
      name: "maxWait counts from the last run, quiet or not", interval: 3, maxWait: 5, events: "a . . b c d e f g",
      runs: "a . . b . . . . g"),
    Timeline(name: "flush has nothing to flush", interval: 3, events: "a F b", runs: "a"),
    Timeline(name: "cancel: the next call runs like the very first", interval: 3, events: "a Cb", runs: "a b"),
    Timeline(name: "invalidate ignores later calls", interval: 3, events: "a . . I b", runs: "a"),
    Timeline(name: "invalidate stops a run not yet started", interval: 3, events: "aI", runs: ""),
  ]

  @Test(arguments: trailing)
  func trailingRunsTheLatestValueAfterAQuietPeriod(_ timeline: Timeline) {
    timeline.play { clock, action in
      Debouncer(
        interval: tick * timeline.interval, mode: .trailing, maxWait: timeline.maxWait.map { tick * $0 },
        queue: .global(), clock: clock, action: action)
    }
  }

  @Test(arguments: leading)
  func leadingRunsACallThatFollowsAQuietPeriod(_ timeline: Timeline) {
    timeline.play { clock, action in
      Debouncer(
        interval: tick * timeline.interval, mode: .leading, maxWait: timeline.maxWait.map { tick * $0 },
        queue: .global(), clock: clock, action: action)
    }
  }

  @Test func defaultsToTrailingWithoutMaxWait() {
    let debouncer = Debouncer<Int>(interval: .seconds(1), queue: .global()) { _ in }
    #expect(debouncer.mode == .trailing)
    #expect(debouncer.interval == .seconds(1))
    #expect(debouncer.maxWait == nil)
  }

  @Test(arguments: DebounceMode.allCases)
  func isPendingWhileAValueIsHeld(_ mode: DebounceMode) {
    let clock = ManualClock()
    let debouncer = Debouncer<Int>(interval: .seconds(3), mode: mode, queue: .global(), clock: clock) { _ in }
    #expect(!debouncer.isPending)
    debouncer(1)
    debouncer(2)
    #expect(debouncer.isPending == (mode == .trailing))
    clock.advance(by: .seconds(3))
    #expect(!debouncer.isPending)
    debouncer(3)
    debouncer.flush()
    #expect(!debouncer.isPending)
    debouncer(4)
    debouncer.cancel()
    #expect(!debouncer.isPending)
    debouncer(5)
    debouncer.invalidate()
    #expect(!debouncer.isPending)
  }

  @Test func armsOneTimerPerQuietPeriodNotOnePerCall() {
    let clock = CountingClock()
    let recorder = Recorder<Int>()
    let debouncer = Debouncer<Int>(interval: .seconds(10), queue: .global(), clock: clock) { recorder.record($0) }
    for value in 1...1_000 {
      debouncer(value)
      clock.base.advance(by: .milliseconds(10))
    }
    // A burst of 10 s of calls: the first timer fires at 10 s and re-arms once for the remainder.
    #expect(clock.scheduled == 2)
    #expect(clock.base.scheduledCount == 1)
    clock.base.run()
    #expect(recorder.values == [1_000])
    #expect(clock.scheduled - recorder.count == 2, "timers armed")
    #expect(clock.now == .milliseconds(9_990) + .seconds(10))
  }

  @Test func aTimerIsReplacedOnlyWhenTheDeadlineMovesEarlier() {
    let clock = CountingClock()
    let recorder = Recorder<Int>()
    let debouncer = Debouncer<Int>(interval: .seconds(10), queue: .global(), clock: clock) {
      recorder.record($0, at: clock.now)
    }
    debouncer(1)
    debouncer.cancel()
    clock.base.advance(by: .seconds(1))
    debouncer(2)  // due at 11 s, while the first timer fires at 10 s: that timer is kept and re-arms
    #expect(clock.scheduled == 1)
    debouncer.flush()  // hands 2 to the clock: one more schedule, not a timer
    clock.base.advance(by: .zero)
    debouncer(3)  // due at 11 s again: still covered by the timer at 10 s
    #expect(clock.scheduled == 2)
    clock.base.run()
    #expect(recorder.values == [2, 3])
    #expect(recorder.runs.map(\.time) == [.seconds(1), .seconds(11)])
    #expect(clock.scheduled - recorder.count == 2, "timers armed")
  }

  @Test func aCallFromInsideTheActionFollowsTheRules() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    let box = Recorder<Debouncer<Int>>()
    let debouncer = Debouncer<Int>(interval: .seconds(2), queue: .global(), clock: clock) { value in
      recorder.record(value, at: clock.now)
      if value < 3 { box.values.first?.call(value + 1) }
    }
    box.record(debouncer)
    debouncer(1)
    clock.run()
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.runs.map(\.time) == [.seconds(2), .seconds(4), .seconds(6)])
    debouncer.invalidate()
  }

  @Test func anOwnerCapturedStronglyIsFreedAfterInvalidateAndAfterDrop() {
    let clock = ManualClock()
    weak var weakOwner: Owner?
    weak var weakDebouncer: Debouncer<Int>?
    do {
      let owner = Owner()
      weakOwner = owner
      let debouncer = Debouncer<Int>(interval: .seconds(1), queue: .global(), clock: clock) { _ in owner.touch() }
      weakDebouncer = debouncer
      debouncer(1)
    }
    #expect(weakDebouncer == nil)
    #expect(weakOwner == nil)
    clock.run()
  }

  @Test func aFlushedRunHoldsTheActionUntilItRuns() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    weak var weakOwner: Owner?
    do {
      let owner = Owner()
      weakOwner = owner
      let debouncer = Debouncer<Int>(interval: .seconds(1), queue: .global(), clock: clock) {
        owner.touch()
        recorder.record($0)
      }
      debouncer(1)
      debouncer.flush()
      debouncer.invalidate()
    }
    #expect(weakOwner != nil)
    clock.advance(by: .zero)
    #expect(recorder.values == [1])
    #expect(weakOwner == nil)
  }

  @Test func voidDebouncerIsCalledWithoutArguments() {
    let clock = ManualClock()
    let recorder = Recorder<Void>()
    let debouncer = Debouncer(interval: .seconds(1), maxWait: .seconds(2), queue: .global(), clock: clock) {
      recorder.record(())
    }
    debouncer()
    debouncer.call()
    clock.run()
    #expect(recorder.count == 1)
    #expect(debouncer.maxWait == .seconds(2))
  }
}
