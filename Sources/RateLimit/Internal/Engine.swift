public import Dispatch

/// The shared machinery behind ``Throttler`` and ``Debouncer``: locking, scheduling, delivery, teardown.
///
/// Decide under the lock, act outside it: every entry point takes the lock once, asks the pure ``TimingRule``
/// what to do, releases the lock, and only then talks to the clock. User code (the action, a custom clock) never
/// runs while the lock is held, so the action may call back in from any thread.
///
/// Timers are lazy: at most one timer is *armed* (the one ``EngineState/armedTimer`` names). When the rule's
/// deadline moves later, the armed timer is kept; when it fires early it re-arms for the remainder. A new timer is
/// scheduled only when the deadline moves *earlier* than the armed one (after `cancel()` or `flush()`), and the
/// old one then fires as a no-op. The clock holds the engine weakly through every closure it is given.
///
/// Performance: the call path is `@inlinable` (and what it touches `@usableFromInline`, none of it public API), so
/// it is specialized for the caller's `Value`; unspecialized generic code would look up type metadata on every
/// call and cost some 20 times more. The mutable state lives behind a pointer rather than in `var` properties,
/// which would pay for a dynamic exclusivity check on every access: the lock already guarantees exclusivity.
@usableFromInline
final class Engine<Rule: TimingRule>: @unchecked Sendable {
  // @unchecked Sendable: `clock`, `queue`, `lock` and the `state` pointer are immutable; `clock` and `queue` are
  // Sendable; the pointee of `state` is read and written only inside `lock.withLock`, which makes those accesses
  // mutually exclusive.

  @usableFromInline typealias Value = Rule.Value
  @usableFromInline typealias Action = EngineState<Rule>.Action

  @usableFromInline let clock: any RateLimitClock
  /// Whether `clock` is the ``DispatchClock``, whose time the call path reads directly, not through the protocol.
  @usableFromInline let readsUptime: Bool
  @usableFromInline let queue: DispatchQueue
  @usableFromInline let lock = Lock()
  /// Guarded by `lock`. Allocated once, freed in `deinit`.
  @usableFromInline let state: UnsafeMutablePointer<EngineState<Rule>>

  init(rule: Rule, clock: any RateLimitClock, queue: DispatchQueue, action: @escaping Action) {
    self.clock = clock
    self.readsUptime = clock is DispatchClock
    self.queue = queue
    state = .allocate(capacity: 1)
    state.initialize(to: EngineState(rule: rule, action: action))
  }

  deinit {
    state.deinitialize(count: 1)
    state.deallocate()
  }

  // MARK: Events

  /// - Complexity: O(1); one lock, one clock read, no allocation unless a run or a new timer is due.
  @inlinable
  func call(_ value: Value) {
    let (runs, timer): (Runs<Value>, ArmedTimer?) = lock.withLock {
      guard state.pointee.action != nil else { return (Runs(), nil) }
      let now = state.pointee.read(clockNow())
      var runs = state.pointee.settle(until: now)
      if let value = state.pointee.rule.called(at: now, with: value) { runs.append(Run(value: value, time: now)) }
      // A zero interval makes the value just held due at once.
      if let run = state.pointee.settleOnce(until: now) { runs.append(run) }
      return (runs, state.pointee.timerToArm())
    }
    if !runs.isEmpty { hand(runs) }
    if let timer { arm(timer) }
  }

  func flush() {
    let (runs, flushedAction): (Runs<Value>, Action?) = lock.withLock {
      guard let action = state.pointee.action else { return (Runs(), nil) }
      let now = state.pointee.read(clockNow())
      var runs = state.pointee.settle(until: now)
      if let value = state.pointee.rule.flushed(at: now) { runs.append(Run(value: value, time: now)) }
      return (runs, action)
    }
    // A flushed value runs even if `invalidate()` follows: its work holds the action itself.
    if let flushedAction { hand(runs, holding: flushedAction) }
  }

  func cancel() {
    let runs: Runs<Value> = lock.withLock {
      guard state.pointee.action != nil else { return Runs() }
      // Work due at this instant runs before the cancel (it can only be overdue with a late real timer).
      let runs = state.pointee.settle(until: state.pointee.read(clockNow()))
      state.pointee.rule.cancelled()
      return runs
    }
    hand(runs)
  }

  func invalidate() {
    let released: Action? = lock.withLock {
      state.pointee.rule.cancelled()
      let released = state.pointee.action
      state.pointee.action = nil
      return released
    }
    // The action, and everything it captured, is released here, outside the lock: a capture's `deinit` may
    // call back into this object.
    _ = released
  }

  var isPending: Bool {
    lock.withLock { state.pointee.action != nil && state.pointee.rule.isPending }
  }

  /// How many timers this engine has asked its clock for. For tests and benchmarks.
  var timerCount: UInt64 {
    lock.withLock { state.pointee.timersArmed }
  }

  /// The clock's `now`.
  @inlinable
  func clockNow() -> Instant {
    readsUptime ? Instant(uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds) : Instant(clock.now)
  }

  // MARK: Outside the lock

  private func timerFired(_ id: UInt64) {
    let (runs, timer, action): (Runs<Value>, ArmedTimer?, Action?) = lock.withLock {
      guard let action = state.pointee.action, state.pointee.armedTimer?.id == id else { return (Runs(), nil, nil) }
      state.pointee.armedTimer = nil
      // If the deadline moved later since this timer was armed, nothing is due and the timer is re-armed for
      // the remainder.
      return (state.pointee.settle(until: state.pointee.read(clockNow())), state.pointee.timerToArm(), action)
    }
    if let timer { arm(timer) }
    if readsUptime, let action {
      // DispatchClock runs this timer on `queue`, where the action runs: start the due run here rather than one
      // more hop through the queue later. It counts as started now: the lock said the engine was valid.
      runs.forEach { action($0.value) }
    } else {
      hand(runs)
    }
  }

  /// Hands `runs` to the clock. Each run checks at delivery that the engine was not invalidated meanwhile, unless
  /// it holds the `action` itself (a flushed run).
  @usableFromInline
  func hand(_ runs: Runs<Value>, holding action: Action? = nil) {
    runs.forEach { run in
      let value = run.value
      if let action {
        clock.schedule(at: run.time.duration, on: queue) { action(value) }
      } else {
        clock.schedule(at: run.time.duration, on: queue) { [weak self] in self?.deliver(value) }
      }
    }
  }

  @usableFromInline
  func arm(_ timer: ArmedTimer) {
    let id = timer.id
    clock.schedule(at: timer.deadline.duration, on: queue) { [weak self] in self?.timerFired(id) }
  }

  /// Runs the action with `value`, unless the engine was invalidated since the run was handed to the queue.
  private func deliver(_ value: Value) {
    let action = lock.withLock { state.pointee.action }
    action?(value)
  }
}

/// Everything an ``Engine`` guards with its lock.
@usableFromInline
struct EngineState<Rule: TimingRule>: Sendable {
  @usableFromInline typealias Action = @Sendable (Rule.Value) -> Void

  /// The timing rule and its state.
  @usableFromInline var rule: Rule
  /// The user's closure; `nil` once invalidated: nothing runs any more.
  @usableFromInline var action: Action?
  /// The timer the engine relies on to meet the rule's deadline, if one is scheduled.
  @usableFromInline var armedTimer: ArmedTimer?
  /// How many timers were scheduled so far; also the id of the latest.
  @usableFromInline var timersArmed: UInt64 = 0
  /// The latest reading of the clock, to notice a clock that goes backwards.
  @usableFromInline var latestReading = Instant.distantPast

  init(rule: Rule, action: @escaping Action) {
    self.rule = rule
    self.action = action
  }

  /// `now`, read from the clock, as the rule may see it: never earlier than the previous reading.
  ///
  /// A clock whose `now` goes back (a custom one; ``DispatchClock`` and ``ManualClock`` never do) counts the step
  /// as no time passing: the rule's instants move back with the clock and the timer is re-armed, so a limiter
  /// neither crashes nor waits for the clock to catch up with where it was.
  @inlinable
  mutating func read(_ reading: Instant) -> Instant {
    if reading < latestReading { clockWentBack(to: reading) }
    latestReading = reading
    return reading
  }

  @usableFromInline
  mutating func clockWentBack(to reading: Instant) {
    rule.clockWentBack(by: Instant.distance(from: reading, to: latestReading))
    // The armed timer's deadline belongs to the old time line; schedule one for the new deadline.
    armedTimer = nil
  }

  /// Runs the held value if its deadline has passed.
  @inlinable
  mutating func settleOnce(until now: Instant) -> Run<Rule.Value>? {
    guard let deadline = rule.deadline, deadline <= now else { return nil }
    return rule.deadlineReached()
  }

  /// Everything due by `now`, in order.
  @inlinable
  mutating func settle(until now: Instant) -> Runs<Rule.Value> {
    var runs = Runs<Rule.Value>()
    if let run = settleOnce(until: now) { runs.append(run) }
    return runs
  }

  /// The timer to schedule so that the rule's deadline is met, if the armed one does not do.
  @inlinable
  mutating func timerToArm() -> ArmedTimer? {
    guard let deadline = rule.deadline else { return nil }
    return timerToArm(for: deadline)
  }

  @inlinable
  mutating func timerToArm(for deadline: Instant) -> ArmedTimer? {
    if let armedTimer, armedTimer.deadline <= deadline { return nil }
    timersArmed &+= 1
    let timer = ArmedTimer(id: timersArmed, deadline: deadline)
    armedTimer = timer
    return timer
  }
}

/// A timer an ``Engine`` has scheduled and still relies on.
@usableFromInline
struct ArmedTimer: Sendable {
  /// Distinguishes this timer from stale ones still in flight.
  @usableFromInline let id: UInt64
  /// When it fires.
  @usableFromInline let deadline: Instant

  @inlinable
  init(id: UInt64, deadline: Instant) {
    self.id = id
    self.deadline = deadline
  }
}
