import Dispatch
import Testing

@testable import RateLimit

/// The real clock, and every mode on it with private queues. Intervals are short, the bounds generous,
/// and the assertions exact: counts, order, last value, the queue the action ran on.
@Suite struct DispatchClockTests {
  @Test func nowIsMonotonicUptime() {
    let clock = DispatchClock()
    let first = clock.now
    let second = clock.now
    #expect(first > .zero)
    #expect(second >= first)
    let uptime = Duration.nanoseconds(DispatchTime.now().uptimeNanoseconds)
    #expect(uptime >= second)
    #expect(uptime - second < .seconds(1))
  }

  @Test func scheduledWorkRunsOnTheQueueNoEarlierThanItsDeadline() async {
    let clock = DispatchClock.dispatch
    let queue = DispatchQueue(label: "DispatchClockTests.schedule")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let deadline = clock.now + .milliseconds(20)
    let (ranAt, marker) = await withCheckedContinuation { continuation in
      clock.schedule(at: deadline, on: queue) {
        continuation.resume(returning: (clock.now, DispatchQueue.getSpecific(key: key)))
      }
    }
    #expect(ranAt >= deadline)
    #expect(marker == 7)
  }

  @Test func pastDeadlinesRunInTheOrderScheduled() async {
    let clock = DispatchClock()
    let queue = DispatchQueue(label: "DispatchClockTests.order")
    let recorder = Recorder<Int>()
    for value in 0..<100 {
      clock.schedule(at: .zero, on: queue) { recorder.record(value) }
    }
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(recorder.values == Array(0..<100))
  }

  @Test(arguments: [
    (Duration.zero, UInt64(0)), (.nanoseconds(5), 5), (.nanoseconds(1) / 4, 1), (.seconds(-3), 0),
    (.seconds(2) + .nanoseconds(1) / 2, 2_000_000_001), (.seconds(Int64.max), .max),
  ])
  func deadlinesRoundUpToWholeNanoseconds(_ deadline: Duration, _ nanoseconds: UInt64) {
    #expect(DispatchClock.uptimeNanoseconds(roundingUp: deadline) == nanoseconds)
  }

  /// One burst, the same for every mode: 5 calls 4 ms apart (values 1...5), interval 100 ms, so the
  /// whole burst sits inside one interval even on a slow machine.
  static func burst(_ call: @Sendable (Int) -> Void) {
    for value in 1...5 {
      call(value)
      usleepMilliseconds(4)
    }
  }

  /// What each mode must run for ``burst(_:)``.
  static let expectations: [(name: String, expected: [Int])] = [
    ("Throttler.leading", [1]), ("Throttler.trailing", [5]), ("Throttler.firstPerDuration", [1, 5]),
    ("Debouncer.leading", [1]), ("Debouncer.trailing", [5]),
  ]

  @Test(arguments: 0..<5)
  func everyModeRunsWhatItsRuleSaysOnThePrivateQueue(_ index: Int) async {
    let queue = DispatchQueue(label: "DispatchClockTests.mode.\(index)")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: index)
    let recorder = Recorder<Int>()
    let wrongQueue = Recorder<Int>()
    let action: @Sendable (Int) -> Void = { value in
      if DispatchQueue.getSpecific(key: key) != index { wrongQueue.record(value) }
      dispatchPrecondition(condition: .onQueue(queue))
      recorder.record(value)
    }
    let interval = Duration.milliseconds(100)
    let limiter: any Sendable
    switch index {
    case 0: limiter = Self.drive(Throttler(interval: interval, mode: .leading, queue: queue, action: action))
    case 1: limiter = Self.drive(Throttler(interval: interval, mode: .trailing, queue: queue, action: action))
    case 2: limiter = Self.drive(Throttler(interval: interval, mode: .firstPerDuration, queue: queue, action: action))
    case 3: limiter = Self.drive(Debouncer(interval: interval, mode: .leading, queue: queue, action: action))
    default: limiter = Self.drive(Debouncer(interval: interval, mode: .trailing, queue: queue, action: action))
    }
    let expected = Self.expectations[index]
    await waitUntil(seconds: 5) { recorder.count >= expected.expected.count }
    // Give a wrong extra run the time to show up: three intervals more.
    usleepMilliseconds(300)
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(recorder.values == expected.expected, "\(expected.name)")
    #expect(wrongQueue.count == 0)
    withExtendedLifetime(limiter) {}
  }

  static func drive<L: Limiting<Int>>(_ limiter: L) -> L {
    burst { limiter.call($0) }
    return limiter
  }

  @Test func invalidateOnTheActionsQueueStopsLaterCalls() async {
    let queue = DispatchQueue(label: "DispatchClockTests.invalidate")
    let recorder = Recorder<Int>()
    let throttler = Throttler<Int>(interval: .zero, queue: queue) { recorder.record($0) }
    queue.suspend()
    for value in 1...10 { throttler(value) }
    queue.resume()
    // The queue is FIFO: the ten runs start before the invalidation, nothing after it.
    queue.sync { throttler.invalidate() }
    for value in 11...20 { throttler(value) }
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(recorder.values == Array(1...10))
  }

  @Test func invalidateBeforeTheQueueRunsStopsEveryRun() async {
    let queue = DispatchQueue(label: "DispatchClockTests.invalidate.suspended")
    let recorder = Recorder<Int>()
    let throttler = Throttler<Int>(interval: .zero, queue: queue) { recorder.record($0) }
    queue.suspend()
    for value in 1...10 { throttler(value) }
    throttler.invalidate()
    queue.resume()
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(recorder.count == 0)
  }

  @Test func droppingADebouncerWithATimerArmedFreesItAtOnce() async {
    let queue = DispatchQueue(label: "DispatchClockTests.drop")
    let recorder = Recorder<Int>()
    weak var weakDebouncer: Debouncer<Int>?
    do {
      let debouncer = Debouncer<Int>(interval: .milliseconds(20), queue: queue) { recorder.record($0) }
      weakDebouncer = debouncer
      debouncer(1)
    }
    #expect(weakDebouncer == nil)
    usleepMilliseconds(60)
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(recorder.count == 0)
  }
}
