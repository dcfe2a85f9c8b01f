public import Dispatch

/// A time source and a timer: what ``Throttler`` and ``Debouncer`` need to know the time and to be woken up.
///
/// The library ships two: ``DispatchClock`` (real time, the default) and ``ManualClock`` (virtual time, for
/// tests). Conform your own to bridge another time source; keep `now` monotonic.
///
/// A throttler reads ``now`` once per call and asks for at most one timer per deadline it needs. Every closure it
/// hands to ``schedule(at:on:_:)`` holds the throttler weakly, so a clock may keep them as long as it likes.
public protocol RateLimitClock: Sendable {
  /// Monotonic time since an arbitrary origin fixed for the clock's life.
  var now: Duration { get }

  /// Runs `work` once ``now`` has reached `deadline` (at once if it already has).
  ///
  /// - Parameters:
  ///   - deadline: The instant, on this clock's time line, at which `work` becomes due.
  ///   - queue: The queue `work` should run on.
  ///   - work: The work; called exactly once.
  func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void)
}
