import Dispatch
import RateLimit
import Testing

/// SPEC "Async actions: the rules", each as a deterministic timeline on a ``ManualClock`` with gated actions:
/// the test awaits a run's arrival at its gate, opens gates, and awaits `waitUntilIdle()`; it never sleeps.
@Suite struct AsyncActionTests {
  typealias Run = Gate<Int>.Run

  /// A throttler every call of which is due at once (a zero interval), so that only `overlap` decides.
  static func everyCall(
    _ overlap: Overlap, _ gate: Gate<Int>, reducing: (@Sendable (inout Int, Int) -> Void)? = nil
  ) -> Throttler<Int> {
    Throttler<Int>(interval: .zero, overlap: overlap, clock: ManualClock(), reducing: reducing) { await gate.run($0) }
  }

  @Test func waitForPreviousStartsTheNewestWaitingRunOnceThePreviousReturns() async {
    let gate = Gate<Int>()
    let limiter = Self.everyCall(.waitForPrevious, gate)
    #expect(!limiter.isRunning)
    limiter(1)
    #expect(limiter.isRunning)
    await gate.arrival(of: 1)
    limiter(2)  // waits
    limiter(3)  // replaces the waiting run
    #expect(limiter.isRunning)
    #expect(gate.started == [1])
    gate.open(0)
    await gate.arrival(of: 2)
    #expect(gate.started == [1, 3])
    #expect(limiter.isRunning)
    gate.open(1)
    await limiter.waitUntilIdle()
    #expect(!limiter.isRunning)
    #expect(gate.runs == [Run(value: 1, returned: true), Run(value: 3, returned: true)])
  }

  @Test func cancelPreviousCancelsTheRunningRunAndStartsTheNextWhenItReturns() async {
    let gate = Gate<Int>()
    let limiter = Self.everyCall(.cancelPrevious, gate)
    limiter(1)
    await gate.arrival(of: 1)
    limiter(2)  // cancels 1, which returns at once (its gate notices), then 2 starts
    await gate.arrival(of: 2)
    limiter(3)
    await gate.arrival(of: 3)
    gate.open(2)
    await limiter.waitUntilIdle()
    #expect(
      gate.runs == [
        Run(value: 1, wasCancelled: true, returned: true), Run(value: 2, wasCancelled: true, returned: true),
        Run(value: 3, returned: true),
      ])
    #expect(!gate.sawOverlap)
  }

  @Test func cancelPreviousWaitsForACancelledRunThatKeepsGoing() async {
    let gate = Gate<Int>(noticesCancellation: false)
    let limiter = Self.everyCall(.cancelPrevious, gate)
    limiter(1)
    await gate.arrival(of: 1)
    limiter(2)  // cancels 1, which does not check: 2 waits
    limiter(3)  // replaces 2
    #expect(gate.started == [1])
    gate.open(0)
    await gate.arrival(of: 2)
    gate.open(1)
    await limiter.waitUntilIdle()
    #expect(gate.runs == [Run(value: 1, wasCancelled: true, returned: true), Run(value: 3, returned: true)])
    #expect(!gate.sawOverlap)
  }

  @Test func dropNewDropsRunsDueWhileOneIsRunning() async {
    let gate = Gate<Int>()
    let limiter = Self.everyCall(.dropNew, gate)
    limiter(1)
    await gate.arrival(of: 1)
    limiter(2)
    limiter(3)
    gate.open(0)
    await limiter.waitUntilIdle()
    #expect(gate.started == [1])
    limiter(4)  // nothing running: starts
    await gate.arrival(of: 2)
    gate.open(1)
    await limiter.waitUntilIdle()
    #expect(gate.runs == [Run(value: 1, returned: true), Run(value: 4, returned: true)])
  }

  /// A waiting run, and a held value dropped at its deadline, count for the rules as a run at the instant they
  /// were decided: a leading throttler's next window is measured from it.
  @Test func theRulesCountARunThatWaits() async {
    let clock = ManualClock()
    let gate = Gate<Int>(noticesCancellation: false)
    let limiter = Throttler<Int>(interval: .seconds(10), overlap: .waitForPrevious, clock: clock) {
      await gate.run($0)
    }
    limiter(1)  // t = 0: runs
    await gate.arrival(of: 1)
    clock.advance(to: .seconds(10))
    limiter(2)  // t = 10: due by the rules; waits; the window now ends at 20
    gate.open(0)
    await gate.arrival(of: 2)
    gate.open(1)
    await limiter.waitUntilIdle()
    clock.advance(to: .seconds(15))
    limiter(3)  // t = 15: nothing is running, but the rules drop it: the window opened at 10
    #expect(!limiter.isRunning)
    clock.advance(to: .seconds(20))
    limiter(4)  // t = 20: runs
    await gate.arrival(of: 3)
    gate.open(2)
    await limiter.waitUntilIdle()
    #expect(gate.started == [1, 2, 4])
  }

  /// SPEC 3.0 (issue 17, 1): a submit button whose send has just finished takes the next tap. A tap that a leading
  /// rule would run at once, dropped by `.dropNew` because a send is running, does not count as a run: no window
  /// opens. (2.0 counted it, so the tap at 5.2 s was dropped too.)
  @Test func aTapDroppedByDropNewDoesNotOpenAWindow() async {
    let clock = ManualClock()
    let gate = Gate<Int>(noticesCancellation: false)
    let submit = Throttler<Int>(interval: .seconds(1), overlap: .dropNew, clock: clock) { await gate.run($0) }
    submit(1)  // t = 0: the send starts; it takes 5 s
    await gate.arrival(of: 1)
    clock.advance(to: .milliseconds(4_500))
    submit(2)  // t = 4.5: a send is running: dropped, and no window opens
    clock.advance(to: .seconds(5))
    gate.open(0)
    await submit.waitUntilIdle()
    clock.advance(to: .milliseconds(5_200))
    submit(3)  // t = 5.2: the button is enabled again: runs
    #expect(submit.isRunning)
    guard submit.isRunning else { return }  // 2.0 dropped it: nothing to wait for
    await gate.arrival(of: 2)
    gate.open(1)
    await submit.waitUntilIdle()
    #expect(gate.started == [1, 3])
  }

  /// The same exception for every rule that runs a call at once: `firstPerDuration`'s first call and
  /// `Debouncer.leading` (whose quiet period still restarts).
  @Test func dropNewDroppedCallsAreDroppedByTheRules() async {
    let clock = ManualClock()
    let gate = Gate<Int>(noticesCancellation: false)
    let first = Throttler<Int>(interval: .seconds(1), mode: .firstPerDuration, overlap: .dropNew, clock: clock) {
      await gate.run($0)
    }
    first(1)  // t = 0: runs, window to 1
    await gate.arrival(of: 1)
    clock.advance(to: .seconds(2))
    first(2)  // t = 2: would run at once; dropped; no window: nothing held
    #expect(!first.isPending)
    gate.open(0)
    await first.waitUntilIdle()
    first(3)  // t = 2, nothing running: runs at once
    #expect(first.isRunning)
    guard first.isRunning else { return }  // 2.0 held it: its window was opened by the dropped call
    await gate.arrival(of: 2)
    gate.open(1)
    await first.waitUntilIdle()
    #expect(gate.started == [1, 3])

    let debounceGate = Gate<Int>(noticesCancellation: false)
    let leading = Debouncer<Int>(interval: .seconds(1), mode: .leading, overlap: .dropNew, clock: clock) {
      await debounceGate.run($0)
    }
    leading(1)  // t = 2: runs
    await debounceGate.arrival(of: 1)
    clock.advance(to: .seconds(4))
    leading(2)  // t = 4: quiet, but dropped by .dropNew; the quiet period restarts (to 5)
    debounceGate.open(0)
    await leading.waitUntilIdle()
    clock.advance(to: .milliseconds(4_500))
    leading(3)  // t = 4.5: not quiet (the call at 4 restarted it): dropped by the rule
    clock.advance(to: .milliseconds(5_500))
    leading(4)  // t = 5.5: quiet: runs
    #expect(leading.isRunning)
    guard leading.isRunning else { return }
    await debounceGate.arrival(of: 2)
    debounceGate.open(1)
    await leading.waitUntilIdle()
    #expect(debounceGate.started == [1, 4])
  }

  /// SPEC 3.0 (issue 17, 2): `flush()` then `cancel()`: the latest intent wins, the flushed run does not start.
  @Test func cancelStopsAFlushedRunThatHasNotStarted() async {
    let clock = ManualClock()
    let gate = Gate<String>()
    let search = Debouncer<String>(interval: .milliseconds(250), overlap: .cancelPrevious, clock: clock) {
      await gate.run($0)
    }
    search("old")
    search.flush()  // return pressed: the run's task is created
    search.cancel()  // the field is cleared at once: the run must not start
    await search.waitUntilIdle()
    #expect(gate.started == [])
    #expect(search.isAtRest)
    // A synchronous action: a flushed run handed to the queue does not start either.
    let ran = Recorder<String>()
    let sync = Debouncer<String>(interval: .milliseconds(250), queue: .main, clock: clock) { ran.record($0) }
    sync("old")
    sync.flush()
    sync.cancel()
    clock.advance(by: .zero)
    #expect(ran.values == [])
  }

  @Test func aRunDueDuringAnAdvanceStartsDuringThatAdvance() async {
    let clock = ManualClock()
    let gate = Gate<String>()
    let limiter = Debouncer<String>(interval: .milliseconds(250), overlap: .cancelPrevious, clock: clock) {
      await gate.run($0)
    }
    limiter("s")
    clock.advance(by: .milliseconds(100))
    limiter("sw")
    clock.advance(by: .milliseconds(249))
    #expect(!limiter.isRunning)
    #expect(limiter.isPending)
    clock.advance(by: .milliseconds(1))  // t = 350: the quiet period ends; the task is created in this advance
    #expect(limiter.isRunning)
    #expect(!limiter.isPending)
    await gate.arrival(of: 1)
    gate.open(0)
    await limiter.waitUntilIdle()
    #expect(gate.started == ["sw"])
    #expect(clock.scheduledCount == 0)
  }

  @Test func flushThenInvalidateStillDeliversTheLastValue() async {
    let clock = ManualClock()
    let gate = Gate<Int>()
    let limiter = Throttler<Int>(interval: .seconds(1), mode: .trailing, overlap: .cancelPrevious, clock: clock) {
      await gate.run($0)
    }
    limiter(1)
    limiter(2)
    #expect(limiter.flush())
    #expect(!limiter.flush())
    limiter.invalidate()  // the flushed run is not cancelled
    await gate.arrival(of: 1)
    gate.open(0)
    await limiter.waitUntilIdle()
    #expect(gate.runs == [Run(value: 2, returned: true)])
  }

  @Test func aFlushedRunWaitingBehindARunningOneSurvivesInvalidate() async {
    let clock = ManualClock()
    let gate = Gate<Int>()
    let limiter = Debouncer<Int>(interval: .seconds(1), overlap: .waitForPrevious, clock: clock) {
      await gate.run($0)
    }
    limiter(1)
    clock.advance(by: .seconds(1))
    await gate.arrival(of: 1)
    limiter(2)
    limiter.flush()  // 2 waits for 1
    limiter.invalidate()  // 1 is cancelled (and returns); 2 is flushed: it still starts, uncancelled
    await gate.arrival(of: 2)
    gate.open(1)
    await limiter.waitUntilIdle()
    #expect(gate.runs == [Run(value: 1, wasCancelled: true, returned: true), Run(value: 2, returned: true)])
  }

  @Test func cancelCancelsTheRunningRunAndDropsTheWaitingOne() async {
    let gate = Gate<Int>(noticesCancellation: false)
    let limiter = Self.everyCall(.waitForPrevious, gate)
    limiter(1)
    await gate.arrival(of: 1)
    limiter(2)
    limiter.cancel()
    #expect(limiter.isRunning, "a cancelled run goes on until it returns")
    gate.open(0)
    await limiter.waitUntilIdle()
    #expect(gate.runs == [Run(value: 1, wasCancelled: true, returned: true)])
    limiter(3)  // still usable
    await gate.arrival(of: 2)
    gate.open(1)
    await limiter.waitUntilIdle()
    #expect(gate.started == [1, 3])
  }

  @Test func invalidateCancelsTheRunningRunDropsTheWaitingOneAndNothingStartsAfter() async {
    let gate = Gate<Int>()
    let limiter = Self.everyCall(.waitForPrevious, gate)
    limiter(1)
    await gate.arrival(of: 1)
    limiter(2)
    limiter.invalidate()
    await limiter.waitUntilIdle()
    limiter(3)
    #expect(!limiter.isRunning)
    await limiter.waitUntilIdle()
    #expect(gate.runs == [Run(value: 1, wasCancelled: true, returned: true)])
  }

  /// On the action's actor, `invalidate()` is exact: a run whose task was created but has not reached the actor
  /// yet never starts.
  @MainActor @Test func invalidateOnTheActionsActorStopsARunWhoseTaskIsOnItsWay() async {
    var started: [Int] = []
    let limiter = Throttler<Int>(interval: .zero, overlap: .waitForPrevious, clock: ManualClock()) { value in
      started.append(value)
    }
    limiter(1)  // the task is created; it cannot reach the main actor before this test suspends
    #expect(limiter.isRunning)
    limiter.invalidate()
    await limiter.waitUntilIdle()
    #expect(started.isEmpty)
  }

  @Test func waitUntilIdleReturnsAtOnceWhenTheWaitingTaskIsCancelled() async {
    let gate = Gate<Int>(noticesCancellation: false)
    let limiter = Self.everyCall(.waitForPrevious, gate)
    limiter(1)
    await gate.arrival(of: 1)
    let waiter = Task { await limiter.waitUntilIdle() }
    waiter.cancel()
    await waiter.value
    #expect(limiter.isRunning)
    let cancelledFirst = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      await limiter.waitUntilIdle()
    }
    await cancelledFirst.value
    gate.open(0)
    await limiter.waitUntilIdle()
    #expect(!limiter.isRunning)
  }

  @Test func waitUntilIdleWaitsForSynchronousRunsHandedToTheQueue() async {
    let queue = DispatchQueue(label: "AsyncActionTests.sync")
    let recorder = Recorder<Int>()
    let limiter = Throttler<Int>(interval: .seconds(60), queue: queue) { value in
      usleepMilliseconds(20)
      recorder.record(value)
    }
    limiter(1)
    #expect(limiter.isRunning)
    await limiter.waitUntilIdle()
    #expect(recorder.values == [1])
    #expect(!limiter.isRunning)
  }

  @Test func isRunningCountsARunHandedToAManualClockUntilItRuns() {
    let clock = ManualClock()
    let limiter = Throttler<Int>(interval: .seconds(1), queue: .main, clock: clock) { _ in }
    limiter(1)
    #expect(limiter.isRunning)
    clock.advance(by: .zero)
    #expect(!limiter.isRunning)
  }

  /// Values that arrive while a run is busy all reach the next run, once, combined in call order.
  @Test func waitForPreviousWithReducingDeliversEveryValueOnce() async {
    let gate = Gate<[Int]>()
    let limiter = Debouncer<[Int]>(
      interval: .seconds(1), maxWait: .seconds(2), overlap: .waitForPrevious, clock: ManualClock(),
      reducing: { $0 += $1 }
    ) { await gate.run($0) }
    limiter([1])
    limiter.flush()
    await gate.arrival(of: 1)
    for value in 2...5 {
      limiter([value])
      limiter.flush()  // each flushed run joins the waiting one
    }
    gate.open(0)
    await gate.arrival(of: 2)
    gate.open(1)
    await limiter.waitUntilIdle()
    #expect(gate.started == [[1], [2, 3, 4, 5]])
  }
}
