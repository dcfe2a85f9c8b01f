import Dispatch
import RateLimit
import Testing

/// The test clock's own contract: virtual time, inline work, deadline order, FIFO at one instant.
@Suite struct ManualClockTests {
  @Test func startsAtZeroWithNothingScheduled() {
    let clock = ManualClock()
    #expect(clock.now == .zero)
    #expect(clock.scheduledCount == 0)
  }

  @Test func scheduleNeverRunsWorkInline() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    clock.schedule(at: .zero, on: .global()) { recorder.record(1) }
    #expect(recorder.count == 0)
    #expect(clock.scheduledCount == 1)
    clock.advance(by: .zero)
    #expect(recorder.values == [1])
    #expect(clock.scheduledCount == 0)
  }

  @Test func runsWorkInDeadlineOrderThenSchedulingOrderWithNowAtEachDeadline() {
    let clock = ManualClock()
    let recorder = Recorder<String>()
    for (name, seconds) in [("c", 3), ("a", 1), ("b1", 2), ("b2", 2), ("late", 9)] {
      clock.schedule(at: .seconds(seconds), on: .global()) { recorder.record(name, at: clock.now) }
    }
    clock.advance(to: .seconds(5))
    #expect(recorder.values == ["a", "b1", "b2", "c"])
    #expect(recorder.runs.map(\.time) == [.seconds(1), .seconds(2), .seconds(2), .seconds(3)])
    #expect(clock.now == .seconds(5))
    #expect(clock.scheduledCount == 1)
    clock.run()  // the pending item captures the clock: run it, or the two keep each other alive
  }

  @Test func advanceRunsNothingBeforeItsDeadlineAndEverythingAtIt() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    clock.schedule(at: .seconds(2), on: .global()) { recorder.record(2) }
    clock.advance(by: .seconds(2) - .nanoseconds(1))
    #expect(recorder.count == 0)
    clock.advance(by: .nanoseconds(1))
    #expect(recorder.values == [2])
  }

  @Test func workScheduledWhileAdvancingRunsInTheSameAdvanceIfDue() {
    let clock = ManualClock()
    let recorder = Recorder<String>()
    clock.schedule(at: .seconds(1), on: .global()) {
      recorder.record("first", at: clock.now)
      clock.schedule(at: clock.now, on: .global()) { recorder.record("same instant", at: clock.now) }
      clock.schedule(at: .seconds(3), on: .global()) { recorder.record("later", at: clock.now) }
      clock.schedule(at: .seconds(9), on: .global()) { recorder.record("too late", at: clock.now) }
    }
    clock.schedule(at: .seconds(1), on: .global()) { recorder.record("second", at: clock.now) }
    clock.advance(to: .seconds(4))
    #expect(recorder.values == ["first", "second", "same instant", "later"])
    #expect(recorder.runs.map(\.time) == [.seconds(1), .seconds(1), .seconds(1), .seconds(3)])
    clock.run()  // the pending item captures the clock: run it, or the two keep each other alive
  }

  @Test func runDrainsEverythingAndStopsAtTheLastDeadline() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    clock.schedule(at: .seconds(4), on: .global()) {
      recorder.record(4)
      clock.schedule(at: .seconds(7), on: .global()) { recorder.record(7) }
    }
    clock.run()
    #expect(recorder.values == [4, 7])
    #expect(clock.now == .seconds(7))
    #expect(clock.scheduledCount == 0)
    clock.run()
    #expect(clock.now == .seconds(7))
  }

  @Test func pastDeadlinesRunOnTheNextAdvanceWithoutMovingTimeBack() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    clock.advance(to: .seconds(5))
    clock.schedule(at: .seconds(1), on: .global()) { recorder.record(1, at: clock.now) }
    clock.advance(by: .zero)
    #expect(recorder.runs.map(\.time) == [.seconds(5)])
  }

  @Test func workRunsOnTheAdvancingThreadNotTheQueue() {
    let clock = ManualClock()
    let queue = DispatchQueue(label: "ManualClockTests.never")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 1)
    let recorder = Recorder<Int?>()
    clock.schedule(at: .zero, on: queue) { recorder.record(DispatchQueue.getSpecific(key: key)) }
    clock.advance(by: .zero)
    #expect(recorder.values == [nil])
  }

  @Test func aMainActorActionOnAManualClockAdvancedOffTheMainThreadHasRunWhenAdvanceReturns() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    let throttler = Throttler<Int>(interval: .seconds(1), mode: .trailing, clock: clock) { value in
      MainActor.assertIsolated()
      recorder.record(value, at: clock.now)
    }
    throttler(1)
    throttler(2)
    clock.advance(by: .seconds(1))
    #expect(recorder.values == [2])
    #expect(recorder.runs.map(\.time) == [.seconds(1)])
  }
}
