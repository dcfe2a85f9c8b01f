public import Dispatch

/// The real clock: monotonic uptime (`DispatchTime.now()`), and `DispatchQueue.asyncAfter` for timers.
///
/// It is the default clock of every initializer, spelled ``RateLimitClock/dispatch`` at call sites:
///
/// ```swift
/// let throttler = Throttler<Int>(
///   interval: .milliseconds(100), queue: queue, clock: .dispatch
/// ) { print($0) }
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
  /// A deadline beyond what `DispatchTime` can represent (some 584 years of uptime, say `now` plus
  /// `.seconds(Int64.max)`) is never reached: `work` is dropped rather than handed to a timer that would keep it
  /// for ever.
  ///
  /// - Parameters:
  ///   - deadline: Uptime at which `work` becomes due.
  ///   - queue: The queue `work` runs on.
  ///   - work: The work.
  public func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    let target = Self.uptimeNanoseconds(roundingUp: deadline)
    if target == .max { return }
    if target <= DispatchTime.now().uptimeNanoseconds {
      queue.async(execute: work)
    } else {
      queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: target), execute: work)
    }
  }

  /// `duration` in whole nanoseconds, rounded up and clamped to `0...UInt64.max`.
  ///
  /// Works on `Duration`'s 128-bit count of attoseconds directly: `components` would trap on a duration whose
  /// seconds do not fit in an `Int64`, which `now + .seconds(Int64.max)` saturated to does not.
  static func uptimeNanoseconds(roundingUp duration: Duration) -> UInt64 {
    let high = duration._high
    let low = duration._low
    guard high >= 0 else { return 0 }
    let attosecondsPerNanosecond: UInt64 = 1_000_000_000
    // The quotient fits in 64 bits exactly when the high word is below the divisor.
    guard UInt64(high) < attosecondsPerNanosecond else { return .max }
    let (quotient, remainder) = attosecondsPerNanosecond.dividingFullWidth((UInt64(high), low))
    let (rounded, overflow) = quotient.addingReportingOverflow(remainder > 0 ? 1 : 0)
    return overflow ? .max : rounded
  }
}

extension RateLimitClock where Self == DispatchClock {
  /// The real clock, ``DispatchClock``: `clock: .dispatch`.
  public static var dispatch: DispatchClock { DispatchClock() }
}
