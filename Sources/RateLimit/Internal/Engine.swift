import Dispatch

/// The shared machinery behind ``Throttler`` and ``Debouncer``: locking, scheduling, delivery, teardown.
///
/// Decide under the lock, act outside it: every entry point takes the lock once, asks the pure ``TimingRule``
/// what to do, releases the lock, and only then talks to the clock. User code (the action, a custom clock) never
/// runs while the lock is held, so the action may call back in from any thread.
///
/// Timers are lazy: at most one timer is *armed* (the one ``armedTimer`` names). When the rule's deadline moves
/// later, the armed timer is kept; when it fires early it re-arms for the remainder. A new timer is scheduled
/// only when the deadline moves *earlier* than the armed one (after `cancel()` or `flush()`), and the old one
/// then fires as a no-op. The clock holds the engine weakly through every closure it is given.
final class Engine<Rule: TimingRule>: @unchecked Sendable {
  // @unchecked Sendable: `clock` and `queue` are immutable and Sendable; every `var` below is read and written
  // only inside `lock.withLock`, which makes those accesses mutually exclusive.

  typealias Value = Rule.Value
  typealias Action = @Sendable (Value) -> Void

  /// A scheduled timer the engine still relies on.
  private struct ArmedTimer {
    /// Distinguishes this timer from stale ones still in flight.
    let id: UInt64
    /// When it fires.
    let deadline: Duration
  }

  private let clock: any RateLimitClock
  private let queue: DispatchQueue
  private let lock = Lock()
  /// Guarded by `lock`.
  private var rule: Rule
  /// Guarded by `lock`. `nil` once invalidated: nothing runs any more.
  private var action: Action?
  /// Guarded by `lock`.
  private var armedTimer: ArmedTimer?
  /// Guarded by `lock`.
  private var timersArmed: UInt64 = 0

  init(rule: Rule, clock: any RateLimitClock, queue: DispatchQueue, action: @escaping Action) {
    self.rule = rule
    self.clock = clock
    self.queue = queue
    self.action = action
  }

  // MARK: Events

  /// - Complexity: O(1); one lock, one clock read, no allocation unless a run or a new timer is due.
  func call(_ value: Value) {
    let (runs, timer): (Runs<Value>, ArmedTimer?) = lock.withLock {
      guard action != nil else { return (Runs(), nil) }
      let now = clock.now
      var runs = settle(until: now)
      if let value = rule.called(at: now, with: value) { runs.append(Run(value: value, time: now)) }
      // A zero interval makes the value just held due at once.
      if let run = settleOnce(until: now) { runs.append(run) }
      return (runs, timerToArm())
    }
    hand(runs)
    arm(timer)
  }

  func flush() {
    let (runs, flushedAction): (Runs<Value>, Action?) = lock.withLock {
      guard let action else { return (Runs(), nil) }
      let now = clock.now
      var runs = settle(until: now)
      if let value = rule.flushed(at: now) { runs.append(Run(value: value, time: now)) }
      return (runs, action)
    }
    // A flushed value runs even if `invalidate()` follows: its work holds the action itself.
    guard let action = flushedAction else { return }
    runs.forEach { run in
      let value = run.value
      clock.schedule(at: run.time, on: queue) { action(value) }
    }
  }

  func cancel() {
    let runs: Runs<Value> = lock.withLock {
      guard action != nil else { return Runs() }
      // Work due at this instant runs before the cancel (it can only be overdue with a late real timer).
      let runs = settle(until: clock.now)
      rule.cancelled()
      return runs
    }
    hand(runs)
  }

  func invalidate() {
    let released: Action? = lock.withLock {
      rule.cancelled()
      let released = action
      action = nil
      return released
    }
    // The action, and everything it captured, is released here, outside the lock: a capture's `deinit` may
    // call back into this object.
    _ = released
  }

  var isPending: Bool {
    lock.withLock { action != nil && rule.isPending }
  }

  /// How many timers this engine has asked its clock for. For tests and benchmarks.
  var timerCount: UInt64 {
    lock.withLock { timersArmed }
  }

  // MARK: Under the lock

  /// Runs the held value if its deadline has passed. Call with the lock held.
  private func settleOnce(until now: Duration) -> Run<Value>? {
    guard let deadline = rule.deadline, deadline <= now else { return nil }
    return rule.deadlineReached()
  }

  /// Everything due by `now`, in order. Call with the lock held.
  private func settle(until now: Duration) -> Runs<Value> {
    var runs = Runs<Value>()
    if let run = settleOnce(until: now) { runs.append(run) }
    return runs
  }

  /// The timer to schedule so that the rule's deadline is met, if the armed one does not do. Call with the
  /// lock held.
  private func timerToArm() -> ArmedTimer? {
    guard let deadline = rule.deadline else { return nil }
    if let armedTimer, armedTimer.deadline <= deadline { return nil }
    timersArmed &+= 1
    let timer = ArmedTimer(id: timersArmed, deadline: deadline)
    armedTimer = timer
    return timer
  }

  // MARK: Outside the lock

  private func timerFired(_ id: UInt64) {
    let (runs, timer): (Runs<Value>, ArmedTimer?) = lock.withLock {
      guard action != nil, armedTimer?.id == id else { return (Runs(), nil) }
      armedTimer = nil
      // If the deadline moved later since this timer was armed, nothing is due and the timer is re-armed for
      // the remainder.
      return (settle(until: clock.now), timerToArm())
    }
    hand(runs)
    arm(timer)
  }

  private func hand(_ runs: Runs<Value>) {
    runs.forEach { run in
      let value = run.value
      clock.schedule(at: run.time, on: queue) { [weak self] in self?.deliver(value) }
    }
  }

  private func arm(_ timer: ArmedTimer?) {
    guard let timer else { return }
    let id = timer.id
    clock.schedule(at: timer.deadline, on: queue) { [weak self] in self?.timerFired(id) }
  }

  /// Runs the action with `value`, unless the engine was invalidated since the run was handed to the queue.
  private func deliver(_ value: Value) {
    let action = lock.withLock { self.action }
    action?(value)
  }
}
