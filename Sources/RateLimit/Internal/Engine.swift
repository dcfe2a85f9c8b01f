public import Dispatch

/// The shared machinery behind ``Throttler`` and ``Debouncer``: locking, scheduling, delivery, teardown.
///
/// Decide under the lock, act outside it: every entry point takes the lock once, asks the pure ``TimingRule``
/// what to do, releases the lock, and only then talks to the clock. User code (the action, a custom clock) never
/// runs while the lock is held, so the action may call back in from any thread.
///
/// Timers are lazy: at most one timer is *armed* (the one ``EngineState/armedDeadline`` names). When the rule's
/// deadline moves later, the armed timer is kept; when it fires early it re-arms for the remainder. A new timer is
/// scheduled only when the deadline moves *earlier* than the armed one (after `cancel()` or `flush()`), and the
/// old one then fires as a no-op. The clock holds the engine weakly through every closure it is given.
///
/// Memory: one allocation holds everything, the ``EngineState`` as the buffer's header and the mutex
/// as its single tail element (an address that never moves, as pthreads requires). With the façade object in
/// front, an idle `Throttler<Int>` takes 208 bytes of heap and a `Debouncer<Int>` 240, allocator overhead included
/// (Benchmarks/README.md).
///
/// Performance: the call path is `@inlinable` (and what it touches `@usableFromInline`, none of it public API), so
/// it is specialized for the caller's `Value`; unspecialized generic code would look up type metadata on every
/// call and cost some 20 times more. The state is reached through a pointer rather than through `var`
/// properties, which would pay for a dynamic exclusivity check on every access: the lock already guarantees
/// exclusivity.
@usableFromInline
final class Engine<Rule: TimingRule>: ManagedBuffer<EngineState<Rule>, Lock.Mutex> {
  // Thread-safe, though `ManagedBuffer` opts out of `Sendable` so the type cannot say so: the header is read and
  // written only inside `withState`, which holds the mutex (even its immutable parts, so that ThreadSanitizer,
  // which sees an access to the whole header, sees it ordered); the mutex itself is only touched through the
  // pthread functions. ``WeakEngine`` and the façades' `nonisolated(unsafe)` rely on this.

  @usableFromInline typealias Value = Rule.Value
  @usableFromInline typealias Action = EngineState<Rule>.Action

  /// Creates an engine: `ManagedBuffer`'s factory, then the mutex initialized in place.
  static func make(rule: Rule, clock: some RateLimitClock, queue: DispatchQueue, action: @escaping Action) -> Engine {
    let box = clock is DispatchClock ? nil : ClockBox(clock)
    let buffer = create(minimumCapacity: 1) { _ in
      EngineState(rule: rule, clock: box, queue: queue, action: action)
    }
    let engine = unsafeDowncast(buffer, to: Engine.self)
    engine.withUnsafeMutablePointerToElements { Lock.initialize($0) }
    return engine
  }

  deinit {
    // The header is destroyed by `ManagedBuffer`; the tail element is ours.
    withUnsafeMutablePointerToElements { Lock.destroy($0) }
  }

  /// Runs `body` with the state, under the lock.
  @inlinable
  func withState<Result>(_ body: (UnsafeMutablePointer<EngineState<Rule>>) -> Result) -> Result {
    withUnsafeMutablePointers { state, mutex in Lock.withLock(mutex) { body(state) } }
  }

  // MARK: Events

  /// - Complexity: O(1); one lock, one clock read, no allocation unless a run or a new timer is due.
  @inlinable
  func call(_ value: Value) {
    // Filled in under the lock, acted on after it; written in place rather than returned, which would copy
    // them on every call.
    var runs = Runs<Value>()
    var timer: Instant?
    withState { state in
      guard state.pointee.action != nil else { return }
      let now = state.pointee.readClock()
      if let run = state.pointee.settleOnce(until: now) { runs.append(run) }
      if let value = state.pointee.rule.called(at: now, with: value) { runs.append(Run(value: value, time: now)) }
      // A zero interval makes the value just held due at once.
      if let run = state.pointee.settleOnce(until: now) { runs.append(run) }
      timer = state.pointee.timerToArm()
    }
    if !runs.isEmpty { hand(runs) }
    if let timer { arm(timer) }
  }

  func flush() {
    let (runs, flushedAction): (Runs<Value>, Action?) = withState { state in
      guard let action = state.pointee.action else { return (Runs(), nil) }
      let now = state.pointee.readClock()
      var runs = state.pointee.settle(until: now)
      if let value = state.pointee.rule.flushed(at: now) { runs.append(Run(value: value, time: now)) }
      return (runs, action)
    }
    // A flushed value runs even if `invalidate()` follows: its work holds the action itself.
    if let flushedAction { hand(runs, holding: flushedAction) }
  }

  func cancel() {
    let runs: Runs<Value> = withState { state in
      guard state.pointee.action != nil else { return Runs() }
      // Work due at this instant runs before the cancel (it can only be overdue with a late real timer).
      let runs = state.pointee.settle(until: state.pointee.readClock())
      state.pointee.rule.cancelled()
      return runs
    }
    hand(runs)
  }

  func invalidate() {
    let released: Action? = withState { state in
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
    withState { $0.pointee.action != nil && $0.pointee.rule.isPending }
  }

  // MARK: Outside the lock

  fileprivate func timerFired(_ deadline: Instant) {
    let (runs, timer, inlineAction): (Runs<Value>, Instant?, Action?) = withState { state in
      guard let action = state.pointee.action, state.pointee.armedDeadline == deadline else {
        return (Runs(), nil, nil)
      }
      state.pointee.armedDeadline = .distantFuture
      // If the deadline moved later since this timer was armed, nothing is due and the timer is re-armed for
      // the remainder.
      let runs = state.pointee.settle(until: state.pointee.readClock())
      return (runs, state.pointee.timerToArm(), state.pointee.clock == nil ? action : nil)
    }
    if let timer { arm(timer) }
    if let action = inlineAction {
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
    guard !runs.isEmpty else { return }
    let (clock, queue) = withState { ($0.pointee.scheduler, $0.pointee.queue) }
    runs.forEach { run in
      let value = run.value
      if let action {
        clock.schedule(at: run.time.duration, on: queue) { action(value) }
      } else {
        let engine = WeakEngine(self)
        clock.schedule(at: run.time.duration, on: queue) { engine.object?.deliver(value) }
      }
    }
  }

  @usableFromInline
  func arm(_ deadline: Instant) {
    let (clock, queue) = withState { ($0.pointee.scheduler, $0.pointee.queue) }
    let engine = WeakEngine(self)
    clock.schedule(at: deadline.duration, on: queue) { engine.object?.timerFired(deadline) }
  }

  /// Runs the action with `value`, unless the engine was invalidated since the run was handed to the queue.
  fileprivate func deliver(_ value: Value) {
    let action = withState { $0.pointee.action }
    action?(value)
  }
}

/// A weak reference to an ``Engine`` that `@Sendable` closures may capture: what timers and runs hold, so that
/// the clock never keeps an engine alive.
@usableFromInline
struct WeakEngine<Rule: TimingRule>: @unchecked Sendable {
  // @unchecked Sendable: an Engine is thread-safe (see its comment); a weak reference to one may be shared.
  @usableFromInline weak var object: Engine<Rule>?

  @usableFromInline
  init(_ object: Engine<Rule>) {
    self.object = object
  }
}

/// A clock other than ``DispatchClock``, kept behind one reference so that an engine spends 8 bytes on it rather
/// than a 40-byte existential. ``DispatchClock``, the default, needs no box at all.
@usableFromInline
final class ClockBox: Sendable {
  @usableFromInline let clock: any RateLimitClock

  init(_ clock: any RateLimitClock) {
    self.clock = clock
  }
}

/// Everything an ``Engine`` holds: immutable settings first, then what its lock guards. The stored properties
/// are declared in the order that packs them tightest.
@usableFromInline
struct EngineState<Rule: TimingRule>: Sendable {
  @usableFromInline typealias Action = @Sendable (Rule.Value) -> Void

  /// The clock, or `nil` for ``DispatchClock``, whose time the call path reads directly. Immutable.
  @usableFromInline let clock: ClockBox?
  /// Where the action runs. Immutable.
  @usableFromInline let queue: DispatchQueue
  /// The timing rule and its state. Its `let` settings are immutable; the rest is guarded by the lock.
  @usableFromInline var rule: Rule
  /// The user's closure; `nil` once invalidated: nothing runs any more.
  @usableFromInline var action: Action?
  /// The deadline of the timer the engine relies on, ``Instant/distantFuture`` if none. The deadline is also the
  /// timer's identity: a timer that fires finds out whether it is still the one relied on by comparing its
  /// deadline. (A stale timer with the same deadline as the armed one fires at the same instant, so acting on
  /// it is the same.)
  @usableFromInline var armedDeadline = Instant.distantFuture
  /// The latest reading of the clock, to notice a clock that goes backwards.
  @usableFromInline var latestReading = Instant.distantPast

  init(rule: Rule, clock: ClockBox?, queue: DispatchQueue, action: @escaping Action) {
    self.rule = rule
    self.clock = clock
    self.queue = queue
    self.action = action
  }

  /// The clock to schedule work with.
  var scheduler: any RateLimitClock { clock?.clock ?? DispatchClock() }

  /// `now`, read from the clock, as the rule may see it: never earlier than the previous reading.
  ///
  /// A clock whose `now` goes back (a custom one; ``DispatchClock`` and ``ManualClock`` never do) counts the step
  /// as no time passing: the rule's instants move back with the clock and the timer is re-armed, so a limiter
  /// neither crashes nor waits for the clock to catch up with where it was.
  @inlinable
  mutating func readClock() -> Instant {
    let reading =
      if let clock { Instant(clock.clock.now) } else {
        Instant(uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds)
      }
    if reading < latestReading { clockWentBack(to: reading) }
    latestReading = reading
    return reading
  }

  @usableFromInline
  mutating func clockWentBack(to reading: Instant) {
    rule.clockWentBack(by: Instant.distance(from: reading, to: latestReading))
    // The armed timer's deadline belongs to the old time line; schedule one for the new deadline.
    armedDeadline = .distantFuture
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

  /// The deadline of the timer to schedule so that the rule's deadline is met, if the armed one does not do.
  @inlinable
  mutating func timerToArm() -> Instant? {
    guard let deadline = rule.deadline else { return nil }
    if armedDeadline <= deadline { return nil }
    armedDeadline = deadline
    return deadline
  }
}
