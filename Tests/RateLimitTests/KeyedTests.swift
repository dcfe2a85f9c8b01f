import Dispatch
import Foundation
import Testing

@testable import RateLimit

/// `Keyed`: one limiter per key, released once at rest, no call lost to a release.
@Suite struct KeyedTests {
  @Test func keysHaveTheirOwnTimingAndAreReleasedAtRest() {
    let clock = ManualClock()
    let recorder = Recorder<String>()
    let made = Tally()
    let keyed = Keyed<String, Throttler<Int>> { key in
      made.add()
      return Throttler<Int>(interval: .seconds(1), queue: .main, clock: clock) { recorder.record("\(key)\($0)") }
    }
    keyed.call(1, for: "a")
    keyed.call(2, for: "a")  // dropped: a's window
    keyed.call(1, for: "b")  // b has its own
    clock.advance(by: .zero)
    #expect(recorder.values == ["a1", "b1"])
    #expect(keyed.count == 2)
    clock.advance(by: .seconds(1))  // both windows end: at rest
    #expect(keyed.count == 0)
    keyed.call(3, for: "a")  // a fresh limiter, indistinguishable
    clock.advance(by: .zero)
    #expect(recorder.values == ["a1", "b1", "a3"])
    #expect(made.value == 3)
    #expect(!keyed.flush("nobody"))
    #expect(!keyed.isPending("nobody"))
    #expect(!keyed.isRunning("nobody"))
  }

  @Test func aTrailingLimiterIsReleasedWhenItsRunReturns() async {
    let clock = ManualClock()
    let gate = Gate<String>()
    let autosave = Keyed<Int, Debouncer<String>> { _ in
      Debouncer<String>(interval: .seconds(1), overlap: .waitForPrevious, clock: clock) { await gate.run($0) }
    }
    autosave.call("draft", for: 7)
    #expect(autosave.isPending(7))
    clock.advance(by: .seconds(1))
    await gate.arrival(of: 1)
    #expect(autosave.isRunning(7))
    #expect(autosave.count == 1)
    gate.open(0)
    await autosave.waitUntilIdle()
    #expect(autosave.count == 0)
    #expect(gate.started == ["draft"])
  }

  /// SPEC 3.1: closing one document waits for its own save, not for every document's.
  @Test(.timeLimit(.minutes(1))) func waitingForOneKeyIsNotDelayedByOthers() async {
    let clock = ManualClock()
    let gate = Gate<String>()
    let autosave = Keyed<Int, Debouncer<String>> { _ in
      Debouncer<String>(interval: .seconds(1), overlap: .waitForPrevious, clock: clock) { await gate.run($0) }
    }
    await autosave.waitUntilIdle(1)  // nothing held: at once
    autosave.call("one", for: 1)
    autosave.call("two", for: 2)
    #expect(autosave.flush(1))
    #expect(autosave.flush(2))
    await gate.arrival(of: 2)
    let oneIndex = gate.started.firstIndex(of: "one")!
    let twoIndex = gate.started.firstIndex(of: "two")!
    gate.open(twoIndex)
    await autosave.waitUntilIdle(2)  // returns while document 1's save is still blocked
    #expect(!autosave.isRunning(2))
    #expect(autosave.isRunning(1))
    #expect(!gate.hasReturned(oneIndex))
    let waiter = Task { await autosave.waitUntilIdle(1) }
    gate.open(oneIndex)
    await waiter.value
    #expect(gate.hasReturned(oneIndex))
    #expect(!autosave.isRunning(1))
    await autosave.waitUntilIdle(3)  // a key never used
  }

  @Test func flushAllCancelAndInvalidate() {
    let clock = ManualClock()
    let recorder = Recorder<String>()
    let made = Tally()
    let keyed = Keyed<String, Debouncer<String>> { _ in
      made.add()
      return Debouncer<String>(interval: .seconds(1), queue: .main, clock: clock) { recorder.record($0) }
    }
    keyed.call("a", for: "a")
    keyed.call("b", for: "b")
    keyed.call("c", for: "c")
    keyed.cancel("c")
    keyed.flushAll()  // app going to the background
    clock.advance(by: .zero)
    #expect(Set(recorder.values) == ["a", "b"])
    keyed.call("d", for: "d")
    keyed.invalidate()
    keyed.call("e", for: "e")  // ignored: makeLimiter is not called
    clock.run()
    #expect(Set(recorder.values) == ["a", "b"])
    #expect(made.value == 4)
    #expect(keyed.count == 0)
  }

  /// 4 threads calling 1,000 keys across releases, `reducing: +=`, on the real clock with a short interval: per
  /// key, the sum delivered is the sum called.
  @Test func noCallIsLostToARelease() async {
    let queue = DispatchQueue(label: "KeyedTests.stress")
    let delivered = Sums()
    let keyed = Keyed<Int, Debouncer<Int>> { key in
      Debouncer<Int>(interval: .microseconds(200), queue: queue, reducing: { $0 += $1 }) { delivered.add($0, for: key) }
    }
    let called = Sums()
    onSeparateThreads(4) { thread in
      var generator = SystemRandomNumberGenerator()
      for round in 0..<5_000 {
        let key = Int.random(in: 0..<1_000, using: &generator)
        let value = thread * 10 + round % 7 + 1
        called.add(value, for: key)
        keyed.call(value, for: key)
        if round % 500 == 0 { usleep(300) }
      }
    }
    await waitUntil(seconds: 10) { delivered.total == called.total }
    queue.sync {}
    #expect(delivered.snapshot == called.snapshot)
    await waitUntil(seconds: 5) { keyed.count == 0 }
    #expect(keyed.count == 0)
  }
}

extension KeyedTests {
  /// The same on a `ManualClock` that a fifth thread keeps advancing while 4 threads call 1,000 keys: limiters
  /// come to rest and are released all the time. Per key, every value called is delivered once, and each
  /// thread's values in the order that thread called them.
  @Test func noCallIsLostToAReleaseOnAManualClock() async {
    let clock = ManualClock()
    let queue = DispatchQueue(label: "KeyedTests.manualStress")
    let delivered = Logs()
    let made = Tally()
    let keyed = Keyed<Int, Debouncer<[Int]>> { key in
      made.add()
      return Debouncer<[Int]>(interval: .milliseconds(1), queue: queue, clock: clock, reducing: { $0 += $1 }) {
        delivered.append($0, for: key)
      }
    }
    let called = Logs()
    let callersDone = Tally()
    onSeparateThreads(5) { thread in
      guard thread < 4 else {
        while callersDone.value < 4 { clock.advance(by: .microseconds(300)) }
        return
      }
      var generator = SystemRandomNumberGenerator()
      for round in 0..<5_000 {
        let key = Int.random(in: 0..<1_000, using: &generator)
        let value = thread * 100_000 + round
        called.append([value], for: key)
        keyed.call([value], for: key)
        // Now and then, let the clock move on by two intervals: runs start, limiters come to rest and are
        // released while the other threads keep calling.
        if round % 250 == 249 {
          let start = clock.now
          while clock.now < start + .milliseconds(2) { usleep(20) }
        }
      }
      callersDone.add()
    }
    clock.run()
    queue.sync {}
    await keyed.waitUntilIdle()
    queue.sync {}
    let sent = called.snapshot
    let received = delivered.snapshot
    #expect(received.values.map(\.count).reduce(0, +) == 20_000)
    for (key, values) in sent {
      #expect(received[key]?.sorted() == values.sorted(), "key \(key): every value once")
      for thread in 0..<4 {
        let fromThread = { (value: Int) in value / 100_000 == thread }
        #expect(
          received[key]?.filter(fromThread) == values.filter(fromThread), "key \(key), thread \(thread): in order")
      }
    }
    #expect(keyed.count == 0)
    #expect(made.value > 1_000, "limiters were released and made again during the calls")
  }
}

/// Thread-safe logs of values per key, in the order they were appended.
final class Logs: @unchecked Sendable {
  // @unchecked Sendable: `logs` is only touched inside `lock.withLock`.
  private let lock = Lock()
  private var logs: [Int: [Int]] = [:]
  func append(_ values: [Int], for key: Int) { lock.withLock { logs[key, default: []] += values } }
  var snapshot: [Int: [Int]] { lock.withLock { logs } }
}

/// A thread-safe tally.
final class Tally: @unchecked Sendable {
  // @unchecked Sendable: `count` is only touched inside `lock.withLock`.
  private let lock = Lock()
  private var count = 0
  func add() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}

/// Thread-safe sums per key.
final class Sums: @unchecked Sendable {
  // @unchecked Sendable: `sums` is only touched inside `lock.withLock`.
  private let lock = Lock()
  private var sums: [Int: Int] = [:]
  func add(_ value: Int, for key: Int) { lock.withLock { sums[key, default: 0] += value } }
  var snapshot: [Int: Int] { lock.withLock { sums } }
  var total: Int { lock.withLock { sums.values.reduce(0, +) } }
}

/// `KeyedRateLimiter`: each key its own limiter; fresh keys forgotten, invisibly.
@Suite struct KeyedRateLimiterTests {
  let clock = SettableClock()

  @Test(arguments: [false, true])
  func keysAreIndependentAndCountFallsBackToZero(_ bucket: Bool) {
    let limiter =
      bucket
      ? KeyedRateLimiter<String>(limit: 1, per: .seconds(10), burst: 1, clock: clock)
      : KeyedRateLimiter<String>(limit: 1, per: .seconds(10), clock: clock)
    #expect(limiter.tryAcquire(for: "a"))
    #expect(!limiter.tryAcquire(for: "a"))
    #expect(limiter.tryAcquire(for: "b"))
    #expect(limiter.count == 2)
    #expect(limiter.retryAfter(for: "a") == .seconds(10))
    #expect(limiter.retryAfter(for: "c") == .zero)
    clock.now = .seconds(5)
    #expect(limiter.count == 2, "not fresh yet: half refilled, or still in the window")
    #expect(!limiter.tryAcquire(for: "a"))
    clock.now = .seconds(10)
    #expect(limiter.count == 0)
    #expect(limiter.tryAcquire(for: "a"), "a forgotten key behaves as a fresh one")
  }

  @Test func reservationsAndCancellationPerKey() {
    let limiter = KeyedRateLimiter<String>(limit: 2, per: .seconds(10), clock: clock)
    #expect(limiter.reserve(2, for: "a")?.time == .zero)
    let booking = limiter.reserve(1, for: "a")
    #expect(booking?.time == .seconds(10))
    #expect(limiter.reserve(3, for: "a") == nil)
    booking?.cancel()
    #expect(limiter.reserve(2, for: "a", within: .seconds(10))?.time == .seconds(10))
    #expect(limiter.reserve(1, for: "b", within: .zero)?.time == .zero)
  }

  @Test func manyKeysUsedOnceAreForgottenAfterAWindow() {
    let limiter = KeyedRateLimiter<String>(limit: 5, per: .seconds(1), burst: 5, clock: clock)
    for index in 0..<100_000 { #expect(limiter.tryAcquire(for: "client-\(index)")) }
    #expect(limiter.count == 100_000)
    clock.now = .seconds(1)
    #expect(limiter.tryAcquire(for: "one more"))
    #expect(limiter.count == 1)
  }

  @Test func aWaiterForOneKeyIsResumedAtItsInstant() async throws {
    let clock = ManualClock()
    let limiter = KeyedRateLimiter<Int>(limit: 1, per: .seconds(1), clock: clock)
    try await limiter.acquire(for: 1)
    try await limiter.acquire(for: 2)  // another key: at once
    let waiter = Task { try await limiter.acquire(for: 1) }
    await clock.waitUntilScheduled(atLeast: 1)
    clock.advance(by: .seconds(1))
    try await waiter.value
    #expect(clock.now == .seconds(1))
  }
}
