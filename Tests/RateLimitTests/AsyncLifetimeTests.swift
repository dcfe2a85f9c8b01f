import Dispatch
import RateLimit
import Testing

/// Async actions keep nothing alive that they should not: a running task holds its action and value only.
@Suite struct AsyncLifetimeTests {
  @Test(arguments: Overlap.allCases)
  func aLimiterDroppedWhileARunIsInFlightIsFreedAtOnceAndTheRunIsCancelled(_ overlap: Overlap) async {
    let gate = Gate<Int>()
    weak var weakLimiter: Throttler<Int>?
    do {
      let limiter = Throttler<Int>(interval: .zero, overlap: overlap, clock: ManualClock()) { await gate.run($0) }
      weakLimiter = limiter
      limiter(1)
      await gate.arrival(of: 1)
      limiter(2)
    }
    #expect(weakLimiter == nil, "the running task kept the limiter alive")
    await gate.arrival(of: 1)
    // The run was cancelled: its gate noticed and it returned; the waiting run (if any) was dropped.
    await waitUntilReturned(gate, count: 1)
    #expect(gate.runs == [Gate<Int>.Run(value: 1, wasCancelled: true, returned: true)])
  }

  @Test func anOwnerCapturedByAnAsyncActionIsFreedAfterInvalidate() async {
    let gate = Gate<Int>()
    weak var weakOwner: Owner?
    let limiter: Debouncer<Int> = {
      let owner = Owner()
      weakOwner = owner
      return Debouncer<Int>(interval: .seconds(1), overlap: .waitForPrevious, clock: ManualClock()) { value in
        owner.touch()
        await gate.run(value)
      }
    }()
    limiter(1)
    limiter.flush()
    await gate.arrival(of: 1)
    limiter(2)  // held
    limiter.invalidate()  // drops the held 2; the flushed run 1 is not cancelled
    #expect(weakOwner != nil, "the flushed run still holds its action")
    gate.open(0)
    await limiter.waitUntilIdle()
    #expect(weakOwner == nil, "the action outlived its last run")
    #expect(gate.runs == [Gate<Int>.Run(value: 1, returned: true)])
  }

  @Test func anOwnerIsFreedAtInvalidateWhenNothingRuns() {
    weak var weakOwner: Owner?
    let limiter: Throttler<Int> = {
      let owner = Owner()
      weakOwner = owner
      return Throttler<Int>(interval: .seconds(1), mode: .trailing, overlap: .dropNew, clock: ManualClock()) { _ in
        owner.touch()
      }
    }()
    limiter(1)
    #expect(weakOwner != nil)
    limiter.invalidate()
    #expect(weakOwner == nil)
  }

  /// Waits until `count` runs of `gate` have returned (the limiter is gone, so its `waitUntilIdle()` is too).
  func waitUntilReturned(_ gate: Gate<Int>, count: Int) async {
    await waitUntil(seconds: 60) { gate.runs.filter(\.returned).count >= count }
  }
}
