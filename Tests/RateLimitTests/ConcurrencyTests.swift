import Dispatch
import Foundation
import RateLimit
import Testing

/// Many threads on one object at once. CI runs this suite again under ThreadSanitizer
/// (`swift test --sanitize=thread --filter ConcurrencyTests`), which must stay clean.
@Suite struct ConcurrencyTests {
  static let threads = 4
  static let callsPerThread = 2_000
  /// Long enough that no timer fires while the threads run: what runs is decided by the rule alone.
  static let longInterval = Duration.seconds(30)

  /// Calls `limiter` from ``threads`` threads at once, ``callsPerThread`` each, values `1...`, then once more
  /// with `sentinel` from this thread, then flushes and waits for `queue` to run what was handed to it.
  static func hammer<L: Limiting<Int>>(_ limiter: L, sentinel: Int, queue: DispatchQueue) {
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for index in 0..<callsPerThread {
        limiter.call(thread * callsPerThread + index + 1)
        if index % 500 == 0 { _ = limiter.isPending }
      }
    }
    limiter.call(sentinel)
    limiter.flush()
    queue.sync {}
  }

  @Test func leadingModesRunOnceHoweverManyThreadsCall() {
    let queue = DispatchQueue(label: "ConcurrencyTests.leading")
    let throttled = Recorder<Int>()
    let debounced = Recorder<Int>()
    let throttler = Throttler<Int>(interval: Self.longInterval, mode: .leading, queue: queue) { throttled.record($0) }
    let debouncer = Debouncer<Int>(interval: Self.longInterval, mode: .leading, queue: queue) { debounced.record($0) }
    Self.hammer(throttler, sentinel: -1, queue: queue)
    Self.hammer(debouncer, sentinel: -1, queue: queue)
    #expect(throttled.count == 1)
    #expect(debounced.count == 1)
    #expect(!throttled.values.contains(-1))
  }

  @Test func trailingModesDeliverTheLastValue() {
    let queue = DispatchQueue(label: "ConcurrencyTests.trailing")
    let throttled = Recorder<Int>()
    let firstPerDuration = Recorder<Int>()
    let debounced = Recorder<Int>()
    let debouncedWithMaxWait = Recorder<Int>()
    let interval = Self.longInterval
    Self.hammer(
      Throttler<Int>(interval: interval, mode: .trailing, queue: queue) { throttled.record($0) },
      sentinel: -1, queue: queue)
    Self.hammer(
      Throttler<Int>(interval: interval, mode: .firstPerDuration, queue: queue) { firstPerDuration.record($0) },
      sentinel: -1, queue: queue)
    Self.hammer(
      Debouncer<Int>(interval: interval, queue: queue) { debounced.record($0) }, sentinel: -1, queue: queue)
    Self.hammer(
      Debouncer<Int>(interval: interval, maxWait: interval * 2, queue: queue) { debouncedWithMaxWait.record($0) },
      sentinel: -1, queue: queue)
    #expect(throttled.values == [-1])
    #expect(firstPerDuration.values.count == 2)
    #expect(firstPerDuration.values.last == -1)
    #expect(debounced.values == [-1])
    #expect(debouncedWithMaxWait.values == [-1])
  }

  @Test(arguments: 0..<5)
  func invalidateRacingWithCallsStopsEveryLaterRun(_ index: Int) {
    let queue = DispatchQueue(label: "ConcurrencyTests.invalidate.\(index)")
    let recorder = Recorder<Int>()
    let limiter: any Limiting<Int> =
      switch index {
      case 0: Throttler<Int>(interval: .zero, mode: .leading, queue: queue) { recorder.record($0) }
      case 1: Throttler<Int>(interval: .microseconds(50), mode: .trailing, queue: queue) { recorder.record($0) }
      case 2: Throttler<Int>(interval: .microseconds(50), mode: .firstPerDuration, queue: queue) { recorder.record($0) }
      case 3: Debouncer<Int>(interval: .zero, mode: .leading, queue: queue) { recorder.record($0) }
      default:
        Debouncer<Int>(interval: .microseconds(50), maxWait: .microseconds(100), queue: queue) { recorder.record($0) }
      }
    let countAtInvalidation = Recorder<Int>()
    DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { thread in
      if thread == Self.threads {
        usleepMilliseconds(1)
        // On the action's queue: nothing can be between "started" and "not started" there.
        queue.sync {
          limiter.invalidate()
          countAtInvalidation.record(recorder.count)
        }
        return
      }
      for value in 0..<Self.callsPerThread {
        limiter.call(value)
        // No flush here: a flush that took the lock before `invalidate` still runs its value, by design.
        if value % 333 == 0 { limiter.cancel() }
      }
    }
    usleepMilliseconds(5)
    queue.sync {}
    #expect(recorder.count == countAtInvalidation.values.first)
    #expect(recorder.count <= Self.threads * Self.callsPerThread)
  }

  @Test func aManualClockAdvancedWhileOtherThreadsCall() {
    let clock = ManualClock()
    let recorder = Recorder<Int>()
    let throttler = Throttler<Int>(interval: .seconds(1), mode: .firstPerDuration, queue: .global(), clock: clock) {
      recorder.record($0, at: clock.now)
    }
    DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
      if thread == 0 {
        for _ in 0..<200 { clock.advance(by: .milliseconds(250)) }
        return
      }
      for value in 0..<Self.callsPerThread { throttler(value) }
    }
    throttler(-1)
    clock.run()
    // 50 s of virtual time at one run per second at most: the first run, one per window, and the sentinel's.
    // (Run times are not compared: a run decided at t and handed to the clock after another thread advanced it
    // runs at the later `now`, since virtual time never goes back.)
    #expect(recorder.count >= 2)
    #expect(recorder.count <= 52)
    #expect(recorder.values.last == -1)
  }
}

/// Async limiters hammered from several threads while another thread invalidates: runs never overlap, no run
/// starts twice, nothing starts after `invalidate()` (but at most the one whose start was under way), and the
/// limiter goes idle. Runs under ThreadSanitizer in CI.
@Suite struct AsyncConcurrencyTests {
  @Test(arguments: Overlap.allCases)
  func threadsCallingAnAsyncLimiterWhileItIsInvalidated(_ overlap: Overlap) async {
    for round in 0..<20 {
      let log = AsyncRunLog()
      let limiter = Debouncer<Int>(
        interval: .microseconds(50), maxWait: .microseconds(200), overlap: overlap, reducing: { $0 = max($0, $1) }
      ) { value in
        log.started(value)
        await Task.yield()
        log.returned()
      }
      onSeparateThreads(4) { thread in
        for index in 0..<500 {
          limiter(thread * 1_000 + index)
          if thread == 3 && index == 250 + round {
            limiter.invalidate()
            log.markInvalidated()
          }
          if index % 50 == 0 { _ = limiter.isRunning }
        }
      }
      await limiter.waitUntilIdle()
      #expect(!limiter.isRunning)
      #expect(!log.overlapped, "two runs at once")
      #expect(log.lateStarts <= 1, "runs started after invalidate() returned")
    }
  }
}

/// What the runs of an async limiter did; locked.
final class AsyncRunLog: @unchecked Sendable {
  // @unchecked Sendable: every stored `var` is only touched inside `lock.withLock`.
  private let lock = NSLock()
  private var running = 0
  private var sawOverlap = false
  private var invalidated = false
  private var late = 0

  func started(_ value: Int) {
    lock.withLock {
      if running > 0 { sawOverlap = true }
      running += 1
      if invalidated { late += 1 }
    }
  }
  func returned() { lock.withLock { running -= 1 } }
  func markInvalidated() { lock.withLock { invalidated = true } }
  var overlapped: Bool { lock.withLock { sawOverlap } }
  var lateStarts: Int { lock.withLock { late } }
}
