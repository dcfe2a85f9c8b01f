import Dispatch
import RateLimit

/// A clock whose `now` a test sets to anything, backwards included; work it is given is kept, never run. For the
/// permit rules' timelines (`tryAcquire`, `reserve`, `cancel` schedule nothing).
final class SettableClock: RateLimitClock, @unchecked Sendable {
  // @unchecked Sendable: `current` and `scheduled` are only touched while holding `lock`.
  private let lock = DispatchSemaphore(value: 1)
  private var current: Duration = .zero
  private var scheduled = 0

  var now: Duration {
    get {
      lock.wait()
      defer { lock.signal() }
      return current
    }
    set {
      lock.wait()
      current = newValue
      lock.signal()
    }
  }

  /// How many pieces of work were scheduled.
  var scheduledCount: Int {
    lock.wait()
    defer { lock.signal() }
    return scheduled
  }

  func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    lock.wait()
    scheduled += 1
    lock.signal()
  }
}
