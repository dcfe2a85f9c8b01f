public import Dispatch

/// The real clock: monotonic uptime (`DispatchTime.now()`), and `DispatchQueue.asyncAfter` for timers.
///
/// It is the default clock of every initializer, spelled ``RateLimitClock/dispatch`` at call sites:
///
/// ```swift
/// let throttler = Throttler<Int>(interval: .milliseconds(100), queue: queue, clock: .dispatch) { print($0) }
/// ```
///
/// Work whose deadline has already passed is handed to the queue with `async`, so runs decided by one event
/// keep their order. Deadlines are rounded up to whole nanoseconds, so work never starts before its deadline.
public struct DispatchClock: RateLimitClock {
  /// Creates the real clock. All instances are interchangeable.
  public init() {}

  /// Nanoseconds of monotonic uptime, as `DispatchTime.now()` reports them.
  ///
  /// - Complexity: O(1); one read of the system's monotonic clock.
  public var now: Duration {
    .nanoseconds(DispatchTime.now().uptimeNanoseconds)
  }

  /// Hands `work` to `queue` at `deadline`: with `async` if it has passed, else with `asyncAfter`.
  ///
  /// - Parameters:
  ///   - deadline: Uptime at which `work` becomes due.
  ///   - queue: The queue `work` runs on.
  ///   - work: The work.
  public func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    let target = Self.uptimeNanoseconds(roundingUp: deadline)
    if target <= DispatchTime.now().uptimeNanoseconds {
      queue.async(execute: work)
    } else {
      queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: target), execute: work)
    }
  }

  /// `duration` in whole nanoseconds, rounded up and clamped to `0...UInt64.max`.
  static func uptimeNanoseconds(roundingUp duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0 else { return 0 }
    let (wholeNanoseconds, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
    let nanoseconds = UInt64(wholeNanoseconds) + (remainder > 0 ? 1 : 0)
    let (scaled, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return .max }
    let (sum, sumOverflow) = scaled.addingReportingOverflow(nanoseconds)
    return sumOverflow ? .max : sum
  }
}

extension RateLimitClock where Self == DispatchClock {
  /// The real clock, ``DispatchClock``: `clock: .dispatch`.
  public static var dispatch: DispatchClock { DispatchClock() }
}
