import Dispatch
import Testing

@testable import RateLimit

/// `finish()`: teardown that loses nothing (SPEC 3.0, issue 17, 3), and `isAtRest`.
@Suite struct FinishTests {
  /// The analytics logger of issue 17: an upload in flight and a batch held when the owner goes away.
  /// `finish()` from `deinit` keeps both; 2.0's `invalidate()` cancelled the upload and lost the batch.
  @Test func finishFromDeinitLosesNothing() async {
    let clock = ManualClock()
    let gate = Gate<[Int]>(noticesCancellation: true)
    let owner = Owner()
    weak var weakOwner: Owner?
    weakOwner = owner
    var logger: Debouncer<[Int]>? = Debouncer<[Int]>(
      interval: .seconds(2), overlap: .waitForPrevious, clock: clock, reducing: { $0 += $1 }
    ) { [owner] batch in
      owner.touch()
      await gate.run(batch)
    }
    logger?([1])
    clock.advance(by: .seconds(2))  // the upload of [1] starts
    await gate.arrival(of: 1)
    logger?([2])
    logger?([3])  // [2, 3] is held
    logger?.finish()
    logger?([4])  // ignored
    logger = nil  // deallocation after finish() stops nothing
    gate.open(0)
    await gate.arrival(of: 2)
    gate.open(1)
    await gate.allReturned()
    #expect(gate.runs == [Gate.Run(value: [1], returned: true), Gate.Run(value: [2, 3], returned: true)])
    _ = consume owner
    await waitUntil(seconds: 5) { weakOwner == nil }
    #expect(weakOwner == nil, "the action is released once the last run returned")
  }

  @Test func finishReleasesTheActionOnceTheLastRunReturns() async {
    let clock = ManualClock()
    let gate = Gate<Int>()
    var owner: Owner? = Owner()
    weak var weakOwner: Owner?
    weakOwner = owner
    let limiter = Throttler<Int>(interval: .seconds(1), mode: .trailing, overlap: .waitForPrevious, clock: clock) {
      [owner] value in
      owner?.touch()
      await gate.run(value)
    }
    owner = nil
    limiter(1)
    limiter.finish()  // flushes 1
    #expect(!limiter.isPending)
    await gate.arrival(of: 1)
    #expect(weakOwner != nil, "the running run still needs the action")
    #expect(!limiter.isAtRest)
    gate.open(0)
    await limiter.waitUntilIdle()
    #expect(weakOwner == nil)
    #expect(limiter.isAtRest)
    limiter(2)
    limiter.flush()
    limiter.cancel()
    await limiter.waitUntilIdle()
    #expect(gate.started == [1])
  }

  @Test(arguments: LimiterKind.allCases)
  func aSynchronousFinishFlushesAndIgnoresLaterCalls(_ kind: LimiterKind) {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    var limiter: (any Limiting<Int>)? = makeLimiter(kind, interval: .seconds(1), queue: .main, clock: clock) {
      recorder.record($0, at: clock.now)
    }
    limiter?.call(1)
    limiter?.call(2)
    limiter?.finish()
    limiter?.call(3)
    limiter?.flush()
    limiter = nil
    clock.run()
    // Leading modes ran 1 at once; the held 2 (if any) is flushed by finish(); 3 is ignored.
    let expected: [Int] =
      switch kind {
      case .throttleLeading, .debounceLeading: [1]
      case .firstPerDuration: [1, 2]
      case .throttleTrailing, .debounceTrailing: [2]
      }
    #expect(recorder.values == expected)
  }

  @Test func invalidateAfterFinishCancelsEverythingNotReturned() async {
    let clock = ManualClock()
    let gate = Gate<Int>()
    let limiter = Debouncer<Int>(interval: .seconds(1), overlap: .waitForPrevious, clock: clock) {
      await gate.run($0)
    }
    limiter(1)
    clock.advance(by: .seconds(1))
    await gate.arrival(of: 1)
    limiter(2)
    limiter.finish()  // 2 waits behind 1
    limiter.invalidate()  // 1 is cancelled, 2 never starts
    await limiter.waitUntilIdle()
    #expect(gate.runs == [Gate.Run(value: 1, wasCancelled: true, returned: true)])
  }
}

/// `isAtRest`: nothing pending, nothing running, and a call now would be treated as the very first.
@Suite struct AtRestTests {
  @Test(arguments: LimiterKind.allCases)
  func atRestOnceTheRulesForgetTheLastCall(_ kind: LimiterKind) {
    let clock = ManualClock()
    let limiter = makeLimiter(kind, interval: .seconds(3), queue: .main, clock: clock) { (_: Int) in }
    #expect(limiter.isAtRest)
    limiter.call(1)
    #expect(!limiter.isAtRest)
    clock.advance(by: .seconds(3) - .nanoseconds(1))
    #expect(!limiter.isAtRest)
    clock.advance(by: .nanoseconds(1))
    // A trailing mode ran its held value at 3 and is idle; a leading one's window or quiet period just ended.
    // firstPerDuration ran 1 at once: its window ended at 3.
    #expect(limiter.isAtRest)
  }

  @Test func aMaxWaitRunLeavesTheBurstGoing() {
    let clock = ManualClock()
    let limiter = Debouncer<Int>(interval: .seconds(2), maxWait: .seconds(3), queue: .main, clock: clock) { _ in }
    limiter(1)
    clock.advance(by: .seconds(1))
    limiter(2)
    clock.advance(by: .seconds(1))
    limiter(3)
    clock.advance(by: .seconds(1))  // t = 3: the maxWait run; the last call was at 2, so the quiet period ends at 4
    #expect(!limiter.isPending)
    #expect(!limiter.isAtRest)
    clock.advance(by: .seconds(1))
    #expect(limiter.isAtRest)
  }

  @Test func runningIsNotAtRestAndInvalidatedIsOnceIdle() async {
    let clock = ManualClock()
    let gate = Gate<Int>(noticesCancellation: false)
    let limiter = Throttler<Int>(interval: .zero, overlap: .waitForPrevious, clock: clock) { await gate.run($0) }
    limiter(1)
    await gate.arrival(of: 1)
    #expect(!limiter.isAtRest)
    limiter.invalidate()
    #expect(!limiter.isAtRest, "its cancelled run has not returned")
    gate.open(0)
    await limiter.waitUntilIdle()
    #expect(limiter.isAtRest)
  }
}
