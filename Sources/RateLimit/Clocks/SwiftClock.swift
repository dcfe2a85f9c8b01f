public import Dispatch

/// Any Swift `Clock` as a ``RateLimitClock``: `ContinuousClock`, `SuspendingClock`, or a test clock of your own,
/// so a limiter runs on the clock your code already injects.
///
/// ```swift
/// let search = Debouncer<String>(
///   interval: .milliseconds(250), queue: work,
///   clock: .swift(ContinuousClock())
/// ) { text in loader.load(text) }
/// ```
///
/// ``now`` is the clock's `now` as a `Duration` since an instant fixed when the `SwiftClock` was made.
/// ``schedule(at:on:_:)`` runs `work` on `queue` once the clock's `sleep(until:)` has returned for that deadline
/// (at once if it has passed), so a test clock that suspends sleepers until it is advanced works as expected: the
/// work runs after the advance that reaches its deadline, on the queue.
///
/// Its timers are tasks sleeping on the clock, so they run on the Swift concurrency thread pool: code that blocks
/// those threads (a `DispatchSemaphore.wait()` in an async context, say) delays them. ``DispatchClock``'s timers
/// do not depend on that pool.
///
/// Which clock for long intervals: ``DispatchClock`` (the default, uptime) and `SuspendingClock` stop while the
/// device sleeps, so "once an hour" means an hour of the device being awake; `.swift(ContinuousClock())` keeps
/// counting through sleep, so a limit measured against a server's wall time ("100 per day") holds after the
/// device wakes.
public struct SwiftClock<C: Clock>: RateLimitClock where C.Duration == Duration {
  /// The clock itself.
  public let clock: C
  /// The clock's instant that ``now`` counts from.
  private let origin: C.Instant

  /// Wraps `clock`; ``now`` starts at (about) `.zero`.
  public init(_ clock: C) {
    self.clock = clock
    self.origin = clock.now
  }

  /// The time since this `SwiftClock` was made, on the wrapped clock.
  public var now: Duration {
    origin.duration(to: clock.now)
  }

  /// Runs `work` on `queue` once the wrapped clock's `sleep(until:)` returns for `deadline` (at once if it has
  /// passed). A deadline too far away to represent (a saturated "never") is dropped rather than kept for ever.
  public func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    let remaining = Instant.distance(from: Instant(now), to: Swift.max(Instant(deadline), Instant(now)))
    if remaining == .zero {
      queue.async(execute: work)
      return
    }
    // Beyond a century is "never": and adding it to an instant might overflow.
    if Instant(.seconds(100 * 365 * 86_400)) < Instant(remaining) { return }
    let instant = origin.advanced(by: deadline)
    let clock = self.clock
    Task.detached {
      // A cancelled sleep still ends the wait: nothing cancels this task, and work must run exactly once.
      try? await clock.sleep(until: instant, tolerance: nil)
      queue.async(execute: work)
    }
  }
}

extension RateLimitClock {
  /// Any Swift clock as a ``RateLimitClock``: `clock: .swift(ContinuousClock())`.
  public static func swift<C: Clock>(_ clock: C) -> SwiftClock<C> where Self == SwiftClock<C> {
    SwiftClock(clock)
  }
}

extension SwiftClock: DefersScheduledWork {}
