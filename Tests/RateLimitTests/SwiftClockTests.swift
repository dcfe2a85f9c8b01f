import Dispatch
import Testing

@testable import RateLimit

/// A test clock that conforms to `Clock`: sleepers are suspended until the test advances it past their deadline.
final class StepClock: Clock, @unchecked Sendable {
  // @unchecked Sendable: `current` and `sleepers` are only touched inside `lock.withLock`; continuations are resumed
  // outside it.
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private let lock = Lock()
  private var current = Instant(offset: .seconds(1_000))
  private var sleepers: [(deadline: Instant, continuation: CheckedContinuation<Void, Never>)] = []

  var now: Instant { lock.withLock { current } }
  var minimumResolution: Duration { .nanoseconds(1) }
  var sleeperCount: Int { lock.withLock { sleepers.count } }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isDue = lock.withLock {
        if deadline <= current { return true }
        sleepers.append((deadline, continuation))
        return false
      }
      if isDue { continuation.resume() }
    }
  }

  func advance(by duration: Duration) {
    let due: [CheckedContinuation<Void, Never>] = lock.withLock {
      current = current.advanced(by: duration)
      let due = sleepers.filter { $0.deadline <= current }.map(\.continuation)
      sleepers.removeAll { $0.deadline <= current }
      return due
    }
    for continuation in due { continuation.resume() }
  }
}

@Suite struct SwiftClockTests {
  @Test func nowCountsFromWhenItWasMade() {
    let base = StepClock()
    let clock = SwiftClock(base)
    #expect(clock.now == .zero)
    base.advance(by: .seconds(2))
    #expect(clock.now == .seconds(2))
  }

  @Test func aTestClockRunsWorkAfterTheAdvanceThatReachesItsDeadlineOnTheQueue() async {
    let base = StepClock()
    let queue = DispatchQueue(label: "SwiftClockTests.step")
    let recorder = Recorder<Int>()
    let limiter = Throttler<Int>(interval: .seconds(1), mode: .trailing, queue: queue, clock: .swift(base)) {
      recorder.record($0)
    }
    limiter(1)
    limiter(2)
    await waitUntil(seconds: 5) { base.sleeperCount == 1 }  // the timer's task is asleep on the test clock
    base.advance(by: .milliseconds(999))
    queue.sync {}
    #expect(recorder.values == [])
    base.advance(by: .milliseconds(1))
    await waitUntil(seconds: 60) { recorder.count == 1 }  // the timer is a task: give a busy pool time
    queue.sync {}
    #expect(recorder.values == [2])
  }

  /// On the real clock, the calls may be slower than the quiet period (under ThreadSanitizer, say), so which
  /// calls run depends on scheduling; what holds whatever it does: runs come in call order, and the last run
  /// carries the last call's value.
  @Test func continuousClockDrivesARealDebouncer() async {
    let queue = DispatchQueue(label: "SwiftClockTests.continuous")
    let recorder = Recorder<Int>()
    let limiter = Debouncer<Int>(
      interval: .milliseconds(20), queue: queue, clock: .swift(ContinuousClock())
    ) { recorder.record($0) }
    for value in 1...5 { limiter(value) }
    // The timer is a task: give a busy pool time.
    await waitUntil(seconds: 60) { recorder.values.last == 5 }
    queue.sync {}
    let values = recorder.values
    #expect(values.last == 5)
    #expect(values == values.sorted() && Set(values).count == values.count)
  }

  @Test func aRateLimiterWaitsOnASwiftClock() async throws {
    let base = StepClock()
    let limiter = RateLimiter(limit: 1, per: .seconds(1), clock: .swift(base))
    try await limiter.acquire()
    let waiter = Task { try await limiter.acquire() }
    await waitUntil(seconds: 5) { base.sleeperCount == 1 }
    base.advance(by: .seconds(1))
    try await waiter.value
  }
}
