public import Dispatch

/// A time source and a timer: what ``Throttler`` and ``Debouncer`` need to know the time and to be woken up.
///
/// The library ships two: ``DispatchClock`` (real time, the default) and ``ManualClock`` (virtual time, for
/// tests). Conform your own to bridge another time source; keep `now` monotonic.
///
/// If `now` goes backwards anyway (a wall clock set back, say), a limiter counts the step as no time passing: its
/// windows and quiet periods keep the time they had left. It neither crashes nor waits for the clock to catch up
/// with where it was.
///
/// ```
/// interval = 1 s, Throttler.trailing, a clock set back an hour at 0.5 s
/// real time     0     0.5                1.5
/// clock.now     0     -3599.5            -3598.5
/// calls         a     b
/// runs                                   b
/// ```
///
/// The window had 1 s left at 0, and 0 → 0.5 counts as no time.
///
/// That guarantee is for a clock that steps back now and then. A clock whose `now` *jitters* (goes back and forth
/// by a few milliseconds on every reading) is not monotonic, and the limits do not hold against it: every step
/// forward counts in full while every step back counts as nothing, so time seems to run fast. Measured with
/// ±5 ms of jitter on a 10 ms leading throttler: 946 to 993 runs where at most 100 were allowed. Keep `now`
/// monotonic; ``DispatchClock``, ``ManualClock`` and ``SwiftClock`` over `ContinuousClock` or `SuspendingClock`
/// are.
///
/// A clock's ``schedule(at:on:_:)`` may run work before it returns when the deadline has passed: the library
/// hands such work to the queue rather than run an action inside `call`.
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
