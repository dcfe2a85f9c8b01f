import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The floor: what any thread-safe, time-based limiter must pay per call. A `pthread_mutex_t` lock and unlock
/// around one `DispatchTime.now()` read and a compare (and the store it decides).
final class Floor: CallSink, @unchecked Sendable {
  // @unchecked Sendable: `last` is only read and written between `pthread_mutex_lock` and `_unlock`.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  /// Behind a pointer, like RateLimit's state, so that no exclusivity check is paid for a `var`.
  private let last: UnsafeMutablePointer<UInt64>
  private let interval: UInt64

  init(interval: Duration) {
    mutex = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    last = .allocate(capacity: 1)
    last.initialize(to: 0)
    self.interval = UInt64(interval.components.seconds) * 1_000_000_000
  }

  func call(_ value: Int) {
    pthread_mutex_lock(mutex)
    let now = DispatchTime.now().uptimeNanoseconds
    if now &- last.pointee >= interval { last.pointee = now }
    pthread_mutex_unlock(mutex)
  }
}

/// The seeds' debounce pattern, as blog posts give it: every call cancels the previous `DispatchWorkItem`, makes a
/// new one, and `asyncAfter`s it. Not thread-safe, as in the original; used from one thread.
final class SeedDebouncer: CallSink, @unchecked Sendable {
  // @unchecked Sendable: like the snippet it copies, it must only be called from one thread at a time; the
  // benchmarks do so.
  private var workItem: DispatchWorkItem?
  private let delay: DispatchTimeInterval
  private let queue: DispatchQueue
  private let action: @Sendable (Int) -> Void
  /// For the timer benchmarks: how many `asyncAfter` this object asked for, and the deadline of the latest.
  private(set) var timersArmed = 0
  private(set) var lastDeadline = DispatchTime.now()

  init(delay: DispatchTimeInterval, queue: DispatchQueue, action: @escaping @Sendable (Int) -> Void) {
    self.delay = delay
    self.queue = queue
    self.action = action
  }

  func call(_ value: Int) {
    workItem?.cancel()
    let action = self.action
    let item = DispatchWorkItem { action(value) }
    workItem = item
    lastDeadline = .now() + delay
    timersArmed += 1
    queue.asyncAfter(deadline: lastDeadline, execute: item)
  }
}

/// An HWThrottle-style leading throttle: keep the time of the last run; a call that comes too soon is dropped,
/// otherwise it runs on the queue. Not thread-safe, like HWThrottle, which is meant for the main thread.
final class LastRunThrottle: CallSink, @unchecked Sendable {
  // @unchecked Sendable: single-threaded by design, as the original; the benchmarks call it from one thread.
  private var lastRun: UInt64?
  private let interval: UInt64
  private let queue: DispatchQueue
  private let action: @Sendable (Int) -> Void

  init(interval: Duration, queue: DispatchQueue, action: @escaping @Sendable (Int) -> Void) {
    self.interval = UInt64(interval.components.seconds) * 1_000_000_000
    self.queue = queue
    self.action = action
  }

  func call(_ value: Int) {
    let now = DispatchTime.now().uptimeNanoseconds
    if let lastRun, now &- lastRun < interval { return }
    lastRun = now
    let action = self.action
    queue.async { action(value) }
  }
}
