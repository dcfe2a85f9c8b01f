import Dispatch
import Foundation
import Testing

@testable import RateLimit

/// Delivery under load (issue 9): runs reach the action in the order the rules decided them, whatever the queue,
/// the threads or the clock do; `invalidate()` from another thread leaves at most one late start; huge intervals
/// saturate; a `ManualClock` holds up when several threads advance it.
@Suite struct DeliveryOrderTests {
  /// The modes that hold a value back, where a late timer used to run the newest value before an older one.
  static let heldModes: [(LimiterKind, Duration?)] = [
    (.throttleTrailing, nil), (.firstPerDuration, nil), (.debounceTrailing, nil),
    (.debounceTrailing, .milliseconds(60)),
  ]

  /// Calls 1...5 at 0, 20, 75, 130 and 190 ms, interval 50 ms; the action's first run sleeps 300 ms, so the
  /// queue is busy while later runs are decided (some by calls that find a deadline overdue, some by timers
  /// waiting behind the sleep). The action must see the values in increasing order, ending with 5.
  static func playBusyQueue(_ call: @Sendable (Int) -> Void) {
    for (value, pause) in [(1, 20), (2, 55), (3, 55), (4, 60), (5, 0)] {
      call(value)
      usleepMilliseconds(UInt32(pause))
    }
  }

  /// An action that sleeps 300 ms on its first run and records every run.
  static func slowFirstRun(_ recorder: Recorder<Int>) -> @Sendable (Int) -> Void {
    { value in
      if recorder.count == 0 { usleepMilliseconds(300) }
      recorder.record(value)
    }
  }

  @Test(arguments: heldModes)
  func aBusyQueueRunsValuesInTheOrderTheyWereDecided(_ kind: LimiterKind, _ maxWait: Duration?) async {
    let queue = DispatchQueue(label: "DeliveryOrderTests.busy")
    let recorder = Recorder<Int>()
    let limiter = makeLimiter(
      kind, interval: .milliseconds(50), maxWait: maxWait, queue: queue, clock: .dispatch,
      action: Self.slowFirstRun(recorder))
    Self.playBusyQueue { limiter.call($0) }
    await waitUntil(seconds: 10) { recorder.values.last == 5 && !limiter.isPending }
    queue.sync {}
    let values = recorder.values
    #expect(values == values.sorted(), "runs out of decision order: \(values)")
    #expect(values.last == 5, "the last run is stale: \(values)")
  }

  /// The same on the main actor, fed from a background thread while the main thread is held up for 300 ms by
  /// the first run.
  @MainActor @Test func aMainActorThrottlerFedFromAnotherThreadEndsOnTheLatestValue() async {
    let recorder = Recorder<Int>()
    let slow = Self.slowFirstRun(recorder)
    let throttler = Throttler<Int>(interval: .milliseconds(50), mode: .trailing) { value in slow(value) }
    let feeder = Thread { Self.playBusyQueue { throttler.call($0) } }
    feeder.start()
    await waitUntil(seconds: 10) { recorder.values.last == 5 && !throttler.isPending }
    let values = recorder.values
    #expect(values == values.sorted(), "runs out of decision order: \(values)")
    #expect(values.last == 5, "the main actor ended on a stale value: \(values)")
  }

  /// A clock whose first `schedule` blocks until the test lets it go: the thread that decided the first run is
  /// held between deciding and handing over, while another thread decides a later run.
  final class SlowFirstScheduleClock: RateLimitClock, @unchecked Sendable {
    // @unchecked Sendable: `scheduled` is only touched inside `lock.withLock`; the semaphores and `base` are
    // thread-safe.
    let base = ManualClock()
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let lock = Lock()
    private var scheduled = 0

    var now: Duration { base.now }

    func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
      let isFirst = lock.withLock {
        scheduled += 1
        return scheduled == 1
      }
      if isFirst {
        entered.signal()
        release.wait()
      }
      base.schedule(at: deadline, on: queue, work)
    }
  }

  @Test(arguments: LimiterKind.allCases)
  func aSlowCustomClockKeepsDecisionOrderAcrossThreads(_ kind: LimiterKind) {
    let clock = SlowFirstScheduleClock()
    let recorder = Recorder<Int>()
    // A zero interval: every call is a run, decided in the order the calls take the lock.
    let limiter = makeLimiter(kind, interval: .zero, queue: DispatchQueue(label: "slow"), clock: clock) {
      (value: Int) in recorder.record(value)
    }
    let handedOver = DispatchSemaphore(value: 0)
    let first = Thread {
      limiter.call(1)
      handedOver.signal()
    }
    first.start()
    clock.entered.wait()  // run 1 is decided; its hand-over is stuck in the clock
    limiter.call(2)  // run 2 is decided and handed over
    clock.release.signal()
    handedOver.wait()  // the first thread finishes handing over
    // Kept alive until its runs are delivered: the first thread's closure held the last other reference, and
    // dropping a limiter is `invalidate()` (a delivery after it starts nothing). Without this the test failed
    // under ThreadSanitizer, once in a few runs, with [1]: the thread exited between the two deliveries.
    withExtendedLifetime(limiter) { clock.base.run() }
    #expect(recorder.values == [1, 2])
  }

  /// Rounds of a trailing throttler running every 100 µs on the real clock, invalidated mid-stream. Counts the
  /// runs that start after `invalidate()` returned: at most one a round from another thread, none on the queue.
  @Test(arguments: [false, true])
  func invalidateLeavesAtMostOneLateStart(onTheQueue: Bool) {
    let rounds = TestEnvironment.integer("RATELIMIT_INVALIDATE_ROUNDS").map(Int.init) ?? 300
    var roundsWithALateStart = 0
    for _ in 0..<rounds {
      let queue = DispatchQueue(label: "DeliveryOrderTests.invalidate")
      let state = InvalidationLog()
      let throttler = Throttler<Int>(interval: .microseconds(100), mode: .trailing, queue: queue) { _ in
        state.started()
      }
      let stop = InvalidationLog()
      let caller = Thread {
        var value = 0
        while !stop.isInvalidated {
          value += 1
          throttler.call(value)
        }
      }
      caller.start()
      usleep(UInt32.random(in: 300...1_500))
      if onTheQueue {
        queue.sync {
          throttler.invalidate()
          state.markInvalidated()
        }
      } else {
        throttler.invalidate()
        state.markInvalidated()
      }
      stop.markInvalidated()
      queue.sync {}
      usleep(300)  // let a timer due at the moment of invalidation fire
      queue.sync {}
      #expect(state.lateStarts <= (onTheQueue ? 0 : 1), "runs started after invalidate() returned")
      if state.lateStarts > 0 { roundsWithALateStart += 1 }
    }
    print(
      "DeliveryOrderTests: invalidate(onTheQueue: \(onTheQueue)): \(roundsWithALateStart) of \(rounds) rounds had a late start"
    )
  }

  @Test(arguments: LimiterKind.allCases)
  func hugeIntervalsSaturateInsteadOfTrapping(_ kind: LimiterKind) async {
    let queue = DispatchQueue(label: "DeliveryOrderTests.huge")
    let recorder = Recorder<Int>()
    let limiter = makeLimiter(
      kind, interval: .seconds(Int64.max), maxWait: .seconds(Int64.max), queue: queue, clock: .dispatch
    ) { (value: Int) in recorder.record(value) }
    limiter.call(1)
    limiter.call(2)
    usleepMilliseconds(20)
    queue.sync {}
    // The first call runs at once where the mode says so; the second waits for a deadline that never comes.
    let runsFirst = kind == .throttleLeading || kind == .firstPerDuration || kind == .debounceLeading
    let holds = kind != .throttleLeading && kind != .debounceLeading
    #expect(recorder.values == (runsFirst ? [1] : []))
    #expect(limiter.isPending == holds)
    limiter.flush()
    queue.sync {}
    #expect(recorder.values == (runsFirst ? [1] : []) + (holds ? [2] : []))
    limiter.invalidate()
  }

  @Test func twoThreadsAdvancingOneManualClockAddUp() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    for tick in 1...100 {
      clock.schedule(at: .nanoseconds(tick * 100), on: .main) { recorder.record(tick, at: clock.now) }
    }
    onSeparateThreads(2) { _ in
      for _ in 0..<10_000 { clock.advance(by: .nanoseconds(1)) }
    }
    #expect(clock.now == .nanoseconds(20_000))
    #expect(recorder.count == 100)
    #expect(clock.scheduledCount == 0)
  }
}

/// Whether `invalidate()` has returned, and how many runs started after it did; locked.
final class InvalidationLog: @unchecked Sendable {
  // @unchecked Sendable: both vars are only touched inside `lock.withLock`.
  private let lock = Lock()
  private var invalidated = false
  private var late = 0

  func markInvalidated() { lock.withLock { invalidated = true } }
  var isInvalidated: Bool { lock.withLock { invalidated } }
  var lateStarts: Int { lock.withLock { late } }
  func started() { lock.withLock { if invalidated { late += 1 } } }
}
