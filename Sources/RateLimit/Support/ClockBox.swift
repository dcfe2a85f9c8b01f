import Dispatch

/// A clock other than ``DispatchClock``, kept behind one reference so that an engine spends 8 bytes on it rather
/// than a 40-byte existential. ``DispatchClock``, the default, needs no box at all.
@usableFromInline
final class ClockBox: @unchecked Sendable {
  // @unchecked Sendable: `latestReading` is read and written only under the lock of the one engine that owns the
  // box (each engine boxes its clock itself); the rest is immutable and Sendable.
  @usableFromInline let clock: any RateLimitClock
  /// Whether the clock may run work inside `schedule` (a custom clock; the library's own never do).
  let mayRunInline: Bool
  /// The owning engine's latest reading of the clock, to notice a clock that goes backwards (``DispatchClock``,
  /// which is never boxed, never does).
  // No dynamic exclusivity check: only touched under the owning engine's lock (the check cost ~70 instructions).
  @exclusivity(unchecked) @usableFromInline var latestReading = Instant.distantPast

  init(_ clock: any RateLimitClock) {
    self.clock = clock
    self.mayRunInline = !(clock is any DefersScheduledWork)
  }

  /// Schedules `work` so that it never runs on the stack of whoever schedules it: if the clock runs it before
  /// `schedule` returns (which the protocol allows for a deadline that has passed), it is handed to `queue`
  /// instead. So a custom clock can never make an action run inside `call`, nor recurse through an action
  /// that calls its own limiter.
  func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    guard mayRunInline else { return clock.schedule(at: deadline, on: queue, work) }
    let scheduling = SchedulingFlag()
    clock.schedule(at: deadline, on: queue) {
      if scheduling.isSet { queue.async(execute: work) } else { work() }
    }
    scheduling.clear()
  }
}

/// The library's clocks, which never run work inside `schedule`: no guard needed.
protocol DefersScheduledWork {}

extension DispatchClock: DefersScheduledWork {}
extension ManualClock: DefersScheduledWork {}

/// Set while `schedule` has not returned: work that sees it set is running inline.
final class SchedulingFlag: @unchecked Sendable {
  // @unchecked Sendable: `set` is only read and written inside `lock.withLock`.
  private let lock = Lock()
  private var set = true

  var isSet: Bool { lock.withLock { set } }

  func clear() { lock.withLock { set = false } }
}
