import Dispatch

@testable import RateLimit

/// A ``ManualClock`` that counts what it is asked to schedule: timers and runs alike. With the runs an action
/// recorded subtracted, what is left is how many timers a limiter armed.
final class CountingClock: RateLimitClock, @unchecked Sendable {
  // @unchecked Sendable: `count` is only touched inside `lock.withLock`; `base` is Sendable.
  let base = ManualClock()
  private let lock = Lock()
  private var count = 0

  var now: Duration { base.now }

  /// How many times ``schedule(at:on:_:)`` was called.
  var scheduled: Int { lock.withLock { count } }

  func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    lock.withLock { count += 1 }
    base.schedule(at: deadline, on: queue, work)
  }
}
