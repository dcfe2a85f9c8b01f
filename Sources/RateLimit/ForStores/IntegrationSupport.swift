/// What the optional integrations (module `RateLimitPostgres`) share with the core, so that they keep the same
/// rules without a copy of them. `package`: seen by this package's modules only, never by an app.

/// Waits as a ``RateLimiter`` waiter does: exactly one piece of work scheduled on `clock` until it reaches
/// `instant` (so tests await ``ManualClock/waitUntilScheduled(atLeast:)`` before advancing), resumed on the
/// waiters' own queue. Throws `CancellationError` at once if the calling task is cancelled first. With
/// `timeline` (`shift`: its ``WaiterTimeline/currentShift`` when the booking was made), a clock that steps back
/// moves the waiter back with it.
package func waitUntilInstant(
  _ instant: Duration, on clock: some RateLimitClock, timeline: WaiterTimeline? = nil, shift: Int64 = 0
) async throws {
  try await waitForInstant(
    Nanoseconds.roundingUp(instant), on: PermitClock(clock), timeline: timeline.map { ($0, shift) }
  ) {}
}

/// `duration` in whole nanoseconds as the permit rules count it: rounded up (`up`) or down, saturating at the
/// 292-year horizon of `Int64`.
package func wholeNanoseconds(_ duration: Duration, roundingUp up: Bool) -> Int64 {
  up ? Nanoseconds.roundingUp(duration) : Nanoseconds.roundingDown(duration)
}

/// A value behind the core's lock (a heap-allocated `pthread_mutex_t`, which ThreadSanitizer sees).
package final class LockedValue<Value>: @unchecked Sendable {
  // @unchecked Sendable: `value` is only read and written inside `lock.withLock`.
  private let lock = Lock()
  private var value: Value

  /// Holds `value`.
  package init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` on the value with the lock held; `body` must not block or call back in.
  package func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
    lock.withLock { body(&value) }
  }
}
