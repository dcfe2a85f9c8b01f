import Dispatch
import RateLimit
import Testing

/// SPEC's three throttle rules, timeline by timeline, on a ``ManualClock``. See ``Timeline`` for the notation.
@Suite struct ThrottlerTests {
  static let leading: [Timeline] = [
    Timeline(name: "a single call runs at once", interval: 3, events: "a", runs: "a"),
    Timeline(name: "a burst runs its first call only", interval: 3, events: "a b c", runs: "a"),
    Timeline(name: "two calls at one instant run once", interval: 3, events: "ab", runs: "a"),
    Timeline(name: "a gap of exactly T counts as quiet", interval: 3, events: "a . . b", runs: "a . . b"),
    Timeline(name: "a gap of T-1 is dropped", interval: 3, events: "a . b", runs: "a"),
    Timeline(name: "a gap of T+1 runs", interval: 3, events: "a . . . b", runs: "a . . . b"),
    Timeline(name: "dropped calls do not restart the window", interval: 3, events: "a . b . c", runs: "a . . . c"),
    Timeline(name: "many windows in a row", interval: 3, events: "a b c d e f g h i j", runs: "a . . d . . g . . j"),
    Timeline(
      name: "a long idle gap", interval: 3, events: "a . . . . . . . . . . . . b c",
      runs: "a . . . . . . . . . . . . b"),
    Timeline(name: "zero interval runs every call in order", interval: 0, events: "ab c . d", runs: "ab c . d"),
    Timeline(name: "flush has nothing to flush", interval: 3, events: "a F b", runs: "a"),
    Timeline(name: "cancel resets the window", interval: 3, events: "a Cb", runs: "a b"),
    Timeline(name: "invalidate ignores later calls", interval: 3, events: "a I . . b", runs: "a"),
    Timeline(name: "invalidate stops a run not yet started", interval: 3, events: "aI . . b", runs: ""),
    Timeline(name: "dropping the throttler stops a run not yet started", interval: 3, events: "aD", runs: ""),
  ]

  static let trailing: [Timeline] = [
    Timeline(name: "a single call runs T later", interval: 3, events: "a", runs: ". . . a"),
    Timeline(name: "a burst runs its latest value at the window's end", interval: 3, events: "a b c", runs: ". . . c"),
    Timeline(
      name: "a call at exactly T opens a new window after the run", interval: 3, events: "a . . b",
      runs: ". . . a . . b"),
    Timeline(name: "a call at T-1 replaces the held value", interval: 3, events: "a . b", runs: ". . . b"),
    Timeline(name: "a call at T+1 opens a new window", interval: 3, events: "a . . . b", runs: ". . . a . . . b"),
    Timeline(
      name: "many windows in a row", interval: 3, events: "a b c d e f g h i j",
      runs: ". . . c . . f . . i . . j"),
    Timeline(
      name: "a long idle gap", interval: 3, events: "a b . . . . . . . . . . c", runs: ". . . b . . . . . . . . . . . c"
    ),
    Timeline(name: "zero interval runs every call in order", interval: 0, events: "ab c . d", runs: "ab c . d"),
    Timeline(name: "flush runs the held value now", interval: 3, events: "a F", runs: ". a"),
    Timeline(name: "after flush the next call opens a new window", interval: 3, events: "a Fb", runs: ". a . . b"),
    Timeline(name: "flush with nothing held does nothing", interval: 3, events: "F a", runs: ". . . . a"),
    Timeline(name: "cancel drops the held value", interval: 3, events: "a C . . b", runs: ". . . . . . . b"),
    Timeline(name: "invalidate drops the held value", interval: 3, events: "a b I . c", runs: ""),
    Timeline(name: "a flushed value runs even if invalidate follows", interval: 3, events: "a FI b", runs: ". a"),
    Timeline(name: "dropping the throttler drops the held value", interval: 3, events: "a D", runs: ""),
  ]

  static let firstPerDuration: [Timeline] = [
    Timeline(name: "a single call runs at once", interval: 3, events: "a", runs: "a"),
    Timeline(
      name: "a burst runs first at once and latest at the window's end", interval: 3, events: "a b c", runs: "a . . c"),
    Timeline(
      name: "a call at exactly T with nothing held runs at once", interval: 3, events: "a . . b", runs: "a . . b"),
    Timeline(name: "a call at T-1 is held until the window's end", interval: 3, events: "a . b", runs: "a . . b"),
    Timeline(name: "a call at T+1 runs at once", interval: 3, events: "a . . . b", runs: "a . . . b"),
    Timeline(
      name: "a held run opens a new window from that run", interval: 3, events: "a b . . . c",
      runs: "a . . b . . c"),
    Timeline(
      name: "a call exactly T after a held run runs at once", interval: 3, events: "a b . . . . c",
      runs: "a . . b . . c"),
    Timeline(
      name: "many windows in a row: runs T apart, last never lost", interval: 3, events: "a b c d e f g h i j",
      runs: "a . . c . . f . . i . . j"),
    Timeline(
      name: "a long idle gap", interval: 3, events: "a b . . . . . . . . . . c d",
      runs: "a . . b . . . . . . . . c . . d"),
    Timeline(name: "zero interval runs every call in order", interval: 0, events: "ab c . d", runs: "ab c . d"),
    Timeline(
      name: "flush runs the held value and opens a window from now", interval: 3, events: "a b F c",
      runs: "a . b . . c"),
    Timeline(
      name: "cancel drops the held value; the next call runs at once", interval: 3, events: "a b Cc", runs: "a . c"),
    Timeline(name: "invalidate drops the held value", interval: 3, events: "a b I", runs: "a"),
  ]

  @Test(arguments: leading)
  func leadingRunsAtOnceIfNothingRanInTheLastInterval(_ timeline: Timeline) {
    timeline.play { clock, action in
      Throttler(interval: tick * timeline.interval, mode: .leading, queue: .global(), clock: clock, action: action)
    }
  }

  @Test(arguments: trailing)
  func trailingRunsTheLatestValueAtTheWindowsEnd(_ timeline: Timeline) {
    timeline.play { clock, action in
      Throttler(interval: tick * timeline.interval, mode: .trailing, queue: .global(), clock: clock, action: action)
    }
  }

  @Test(arguments: firstPerDuration)
  func firstPerDurationRunsFirstAtOnceAndLastAtTheWindowsEnd(_ timeline: Timeline) {
    timeline.play { clock, action in
      Throttler(
        interval: tick * timeline.interval, mode: .firstPerDuration, queue: .global(), clock: clock, action: action)
    }
  }

  @Test func defaultsToLeading() {
    let throttler = Throttler<Int>(interval: .seconds(1), queue: .global()) { _ in }
    #expect(throttler.mode == .leading)
    #expect(throttler.interval == .seconds(1))
  }

  @Test func runsWithTheClocksNowAtTheRunsDeadline() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    let throttler = Throttler<Int>(interval: .seconds(3), mode: .trailing, queue: .global(), clock: clock) {
      recorder.record($0, at: clock.now)
    }
    throttler(1)
    clock.advance(by: .milliseconds(500))
    throttler(2)
    clock.advance(by: .seconds(10))
    #expect(recorder.runs.map(\.time) == [.seconds(3)])
    #expect(recorder.values == [2])
    #expect(clock.now == .milliseconds(10_500))
  }

  @Test(arguments: ThrottleMode.allCases)
  func isPendingWhileAValueIsHeld(_ mode: ThrottleMode) {
    let clock = ManualClock()
    let throttler = Throttler<Int>(interval: .seconds(3), mode: mode, queue: .global(), clock: clock) { _ in }
    #expect(!throttler.isPending)
    throttler(1)
    #expect(throttler.isPending == (mode == .trailing))
    clock.advance(by: .seconds(1))
    throttler(2)
    #expect(throttler.isPending == (mode != .leading))
    clock.advance(by: .seconds(2))
    #expect(!throttler.isPending)
    throttler(3)
    throttler.cancel()
    #expect(!throttler.isPending)
    throttler(4)
    throttler.invalidate()
    #expect(!throttler.isPending)
  }

  @Test func invalidateIsIdempotentAndReleasesTheAction() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    weak var weakOwner: Owner?
    let throttler: Throttler<Int>
    do {
      let owner = Owner()
      weakOwner = owner
      throttler = Throttler(interval: .seconds(1), mode: .trailing, queue: .global(), clock: clock) { value in
        owner.touch()
        recorder.record(value)
      }
    }
    throttler(1)
    #expect(weakOwner != nil)
    throttler.invalidate()
    #expect(weakOwner == nil)
    throttler.invalidate()
    throttler(2)
    throttler.flush()
    clock.run()
    #expect(recorder.count == 0)
  }

  @Test func droppedWithWorkPendingIsFreedAtOnceAndNothingRuns() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    weak var weakThrottler: Throttler<Int>?
    do {
      let throttler = Throttler<Int>(interval: .seconds(1), mode: .trailing, queue: .global(), clock: clock) {
        recorder.record($0)
      }
      weakThrottler = throttler
      throttler(1)
      #expect(throttler.isPending)
    }
    #expect(weakThrottler == nil)
    clock.run()
    #expect(recorder.count == 0)
  }

  @Test func anOwnerCapturedStronglyIsFreedAfterInvalidate() {
    /// A view model that owns its throttler, whose action captures the view model strongly: a cycle
    /// that `invalidate()` must break.
    final class ViewModel: Sendable {
      let reload: Throttler<Void>
      let reloads = Recorder<Void>()
      init(clock: ManualClock) {
        let box = Recorder<ViewModel>()
        reload = Throttler(interval: .seconds(1), queue: .global(), clock: clock) {
          box.values.first?.reloads.record(())
        }
        box.record(self)
      }
    }
    let clock = ManualClock()
    weak var weakModel: ViewModel?
    do {
      let model = ViewModel(clock: clock)
      weakModel = model
      model.reload()
      clock.run()
      #expect(model.reloads.count == 1)
      model.reload.invalidate()
    }
    #expect(weakModel == nil)
  }

  @Test func aCallFromInsideTheActionFollowsTheRules() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    let box = Recorder<Throttler<Int>>()
    let throttler = Throttler<Int>(interval: .seconds(2), mode: .firstPerDuration, queue: .global(), clock: clock) {
      value in
      recorder.record(value, at: clock.now)
      if value < 3 { box.values.first?.call(value + 1) }
    }
    box.record(throttler)
    throttler(1)
    clock.run()
    // 1 runs at 0 and calls 2 inside its window: held, run at 2, which calls 3: held, run at 4.
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.runs.map(\.time) == [.zero, .seconds(2), .seconds(4)])
    throttler.invalidate()
  }

  @Test func voidThrottlerIsCalledWithoutArguments() {
    let clock = ManualClock()
    let recorder = Recorder<Void>()
    let throttler = Throttler(interval: .seconds(1), mode: .trailing, queue: .global(), clock: clock) {
      recorder.record(())
    }
    throttler()
    throttler.call()
    clock.run()
    #expect(recorder.count == 1)
  }

  @Test func hugeIntervalMeansNeverAgainRatherThanOverflow() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    let throttler = Throttler<Int>(
      interval: .seconds(Int64.max), mode: .firstPerDuration, queue: .global(), clock: clock
    ) { recorder.record($0) }
    throttler(1)
    clock.advance(by: .seconds(1_000_000))
    throttler(2)
    clock.advance(by: .seconds(1_000_000))
    #expect(recorder.values == [1])
    #expect(throttler.isPending)
    throttler.flush()
    clock.advance(by: .zero)
    #expect(recorder.values == [1, 2])
  }
}
