import Dispatch

/// The shared machinery behind ``Throttler`` and ``Debouncer``, for synchronous and async actions alike: the
/// lock, the timer, the entry points.
///
/// Decide under the lock, act outside it: every entry point takes the lock once, asks the pure ``TimingRule``
/// what to do and records the runs it decides (``EngineState/decided(_:isFlushed:into:engine:)``), releases the
/// lock, and only then talks to the clock or cancels a task. User code (the action, a custom clock, a task's
/// cancellation handler) never runs while the lock is held, so the action may call back in from any thread.
///
/// Timers are lazy: at most one timer is *armed* (the one ``EngineState/armedDeadline`` names). When the rule's
/// deadline moves later, the armed timer is kept; when it fires early it re-arms for the remainder. A new timer is
/// scheduled only when the deadline moves *earlier* than the armed one (after `cancel()` or `flush()`), and the
/// old one then fires as a no-op. Timers and deliveries hold the engine weakly (it holds its clock, which holds
/// them); a task holds it until its action returns; nothing holds the façade.
///
/// How runs start is in `Engine+Queue.swift` (synchronous actions, in decision order) and `Engine+Tasks.swift`
/// (async actions, under the overlap policy).
///
/// Memory: one allocation holds everything, the ``EngineState`` as the buffer's header and the mutex as its single
/// tail element (an address that never moves, as pthreads requires). With the façade in front, an idle
/// `Throttler<Int>` takes 256 bytes of heap and a `Debouncer<Int>` 255 (Benchmarks/README.md): what only some
/// limiters need lives in ``EngineExtras``, made on demand.
///
/// Performance: the call path is `@inlinable` (and what it touches `@usableFromInline`, none of it public API), so
/// it is specialized for the caller's `Value`; unspecialized generic code would look up type metadata on every
/// call and cost some 20 times more. The façades' public initializers are inlinable too, and build there, at the
/// caller, the closure `call` goes through: so a call through the protocol or from generic code runs specialized
/// code as well. The state is reached through a pointer rather than through `var`
/// properties, which would pay for a dynamic exclusivity check on every access: the lock already guarantees
/// exclusivity.
@usableFromInline
final class Engine<Rule: TimingRule>: ManagedBuffer<EngineState<Rule>, Lock.Mutex> {
  // Thread-safe, though `ManagedBuffer` opts out of `Sendable` so the type cannot say so: the header is read and
  // written only inside `withState`, which holds the mutex (even its immutable parts, so that ThreadSanitizer,
  // which sees an access to the whole header, sees it ordered); the mutex itself is only touched through the
  // pthread functions. ``EngineReference``, ``WeakEngine`` and the façades' `nonisolated(unsafe)` rely on this.

  @usableFromInline typealias Value = Rule.Value

  /// Creates an engine: `ManagedBuffer`'s factory, then the mutex initialized in place.
  @usableFromInline
  static func make(
    rule: Rule, clock: some RateLimitClock, target: ActionTarget<Value>, reduce: Reducer<Value>?
  ) -> Engine {
    let box = clock is DispatchClock ? nil : ClockBox(clock)
    let buffer = create(minimumCapacity: 1) { _ in
      EngineState(rule: rule, clock: box, target: target, reduce: reduce)
    }
    let engine = unsafeDowncast(buffer, to: Engine.self)
    engine.withUnsafeMutablePointerToElements { Lock.initialize($0) }
    return engine
  }

  deinit {
    // No other reference exists any more: the state is ours without the lock.
    withUnsafeMutablePointerToHeader { Self.handFlushedRunsOver(&$0.pointee) }
    // The header is destroyed by `ManagedBuffer`; the tail element is ours.
    withUnsafeMutablePointerToElements { Lock.destroy($0) }
  }

  /// Runs `body` with the state, under the lock.
  @inlinable
  func withState<Result>(_ body: (UnsafeMutablePointer<EngineState<Rule>>) -> Result) -> Result {
    withUnsafeMutablePointers { state, mutex in Lock.withLock(mutex) { body(state) } }
  }

  /// The call path for `engine`: `engine.call(value)`, compiled where this is referenced. The façades' public
  /// initializers (inlinable) use it as a default argument, so it is compiled in the caller's code, specialized
  /// for its `Value`: a call made through ``ActionLimiter`` or from generic code, which reaches the façade's
  /// unspecialized `call`, still runs specialized code (without it: 21 times the cost of a direct call).
  ///
  /// With a reducer, the closure captures it: a call finds it in the closure's context, not in the engine (one
  /// indirection fewer, measured: 10 instructions), and a synchronous limiter with a reducer needs no extras.
  @inlinable
  static func specializedCall(_ engine: Engine, reducing reduce: Reducer<Value>?) -> @Sendable (Value) -> Void {
    let reference = EngineReference(engine)
    guard let reduce else { return { value in reference.object.call(value, reducing: nil) } }
    return { value in reference.object.call(value, reducing: reduce) }
  }

  // MARK: Events

  /// - Complexity: O(1); one lock, one clock read, no allocation unless a run or a new timer is due.
  @inlinable @inline(__always)
  func call(_ value: Value, reducing reduce: Reducer<Value>?) {
    // Filled in under the lock, acted on after it; written in place rather than returned. What the rules let go
    // of (a replaced held value, a dropped run) waits in `discarded` until the lock is released.
    var handOff = HandOff()
    var timer: Instant?
    var discarded: (Value?, Value?, Value?)
    withState { state in
      guard state.pointee.acceptsCalls else { return }
      let now = state.pointee.readClock()
      // The usual call in a burst: dropped, or joined to a held value; nothing is due before or after it.
      if state.pointee.rule.calledMidBurst(
        at: now, with: value, reducing: reduce, displaced: &discarded.1)
      {
        // A held value has a timer armed at or before its deadline, which this call only moved later; unless the
        // clock just went back, which disarmed it.
        if state.pointee.armedDeadline == .distantFuture { timer = state.pointee.timerToArm() }
        return
      }
      state.pointee.handOverDueWork(until: now, into: &handOff, discarding: &discarded.0, engine: self)
      if let value = state.pointee.rule.called(
        at: now, with: value, reducing: reduce, mayRunAtOnce: state.pointee.acceptsRunAtOnce,
        displaced: &discarded.1)
      {
        state.pointee.decided(
          Run(value: value, time: now), isFlushed: false, into: &handOff, discarding: &discarded.2, engine: self)
      }
      // A zero interval makes the value just held due at once.
      state.pointee.handOverDueWork(until: now, into: &handOff, discarding: &discarded.2, engine: self)
      timer = state.pointee.timerToArm()
    }
    if !handOff.isEmpty { carryOut(handOff) }
    if let timer { arm(timer) }
  }

  func flush() -> Bool {
    var handOff = HandOff()
    var discarded: (Value?, Value?)
    let flushed = withState { state in
      guard state.pointee.acceptsCalls else { return false }
      return state.pointee.flush(into: &handOff, discarding: &discarded, engine: self)
    }
    carryOut(handOff)
    return flushed
  }

  func cancel() {
    var handOff = HandOff()
    var overdue: Value?
    var discarded: (Value?, Value?)
    let dropped: RunQueue<Value>? = withState { state in
      guard state.pointee.acceptsCalls else { return nil }
      // Work due at this instant runs before the cancel (it can only be overdue with a late real timer).
      state.pointee.handOverDueWork(
        until: state.pointee.readClock(), into: &handOff, discarding: &overdue, engine: self)
      return state.pointee.cancel(into: &handOff, discarding: &discarded)
    }
    carryOut(handOff)
    // The dropped runs and values are released here, outside the lock.
    _ = dropped
  }

  /// `finish()`: flushes the held value, ignores later calls, keeps every run in flight (deallocation stops none
  /// of them) and lets the action go once the last of them has returned.
  func finish() {
    var handOff = HandOff()
    var discarded: (Value?, Value?)
    let (notice, released) = withState { state -> (IdleNotice, (Action<Value>?, Action<Value>?)) in
      guard state.pointee.acceptsCalls else { return (.none, (nil, nil)) }
      _ = state.pointee.flush(into: &handOff, discarding: &discarded, engine: self)
      state.pointee.finish()
      return (state.pointee.idleNotice(), state.pointee.releaseUnneededAction())
    }
    carryOut(handOff)
    notice.deliver()
    _ = released
  }

  func invalidate() {
    var handOff = HandOff()
    var discarded: (Value?, Value?)
    let (released, dropped, notice) = withState { state in
      let (released, dropped) = state.pointee.invalidate(into: &handOff, discarding: &discarded)
      return (released, dropped, state.pointee.idleNotice())
    }
    carryOut(handOff)
    notice.deliver()
    // The action, and everything it captured, is released here, outside the lock, with the values and runs
    // dropped: a capture's or a value's `deinit` may call back into this object.
    _ = (released, dropped)
  }

  /// The façade went away: as `invalidate()`, unless `finish()` was called (then nothing stops).
  func ownerWentAway() {
    if withState({ $0.pointee.isFinishing }) { return }
    invalidate()
  }

  var isPending: Bool {
    withState { $0.pointee.acceptsCalls && $0.pointee.rule.isPending }
  }

  var isRunning: Bool {
    withState { !$0.pointee.isIdle }
  }

  var isAtRest: Bool {
    withState { $0.pointee.isAtRest() }
  }

  /// Sets the observer told each time the limiter becomes idle (``Keyed``).
  func observeIdle(_ observer: @escaping @Sendable () -> Void) {
    withState { $0.pointee.ensureExtras().idleWaiters.observer = observer }
  }

  /// Returns once nothing is handed over, waiting or running; at once if the calling task is cancelled.
  func waitUntilIdle() async {
    let engine = EngineReference(self)
    let id: UInt64? = withState { $0.pointee.isIdle ? nil : $0.pointee.ensureExtras().idleWaiters.nextID() }
    guard let id else { return }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: IdleWaiters.Continuation) in
        let isDone = engine.object.withState { state in
          if state.pointee.isIdle || Task.isCancelled { return true }
          state.pointee.extras!.idleWaiters.add(id, continuation)
          return false
        }
        if isDone { continuation.resume() }
      }
    } onCancel: {
      engine.object.withState { $0.pointee.extras?.idleWaiters.remove(id) }?.resume()
    }
  }

  // MARK: Outside the lock

  /// The armed timer fired: settles what is due and re-arms for the rest.
  @inlinable
  func timerFired(_ deadline: Instant) {
    var handOff = HandOff()
    var discarded: Value?
    let (timer, isOnQueue): (Instant?, Bool) = withState { state in
      guard state.pointee.acceptsCalls, state.pointee.armedDeadline == deadline else { return (nil, false) }
      state.pointee.armedDeadline = .distantFuture
      // If the deadline moved later since this timer was armed, nothing is due and the timer is re-armed for
      // the remainder.
      state.pointee.handOverDueWork(
        until: state.pointee.readClock(), into: &handOff, discarding: &discarded, engine: self)
      // DispatchClock runs this timer on the queue of a synchronous action.
      return (state.pointee.timerToArm(), state.pointee.clock == nil && state.pointee.extras?.slot == nil)
    }
    if let timer { arm(timer) }
    if isOnQueue, handOff.deliveries.0 != nil {
      // This block is on the queue already: it is the delivery of the run it decided (it starts the run at the
      // head, as every delivery does), rather than one more hop through the queue.
      handOff.deliveries.0 = nil
      deliverNext()
    }
    carryOut(handOff)
  }

  /// Arms a timer for `deadline`, holding the engine weakly.
  @inlinable
  func arm(_ deadline: Instant) {
    let state = withState { $0.pointee.schedulingState }
    let engine = WeakEngine(self)
    state.schedule(at: deadline) { engine.object?.timerFired(deadline) }
  }

  /// Does what an event left to do once the lock is released: cancels a task, hands deliveries to the clock.
  @inlinable
  func carryOut(_ handOff: HandOff) {
    if handOff.cancelsTask {
      // `cancel()` runs the task's cancellation handlers, user code: never under the lock.
      withState { $0.pointee.extras?.taskToCancel.take() }?.cancel()
    }
    if handOff.deliveries.0 != nil || handOff.deliveries.1 != nil { scheduleDeliveries(handOff.deliveries) }
  }
}

extension EngineState {
  /// `flush()` after due work: the held value, if any, becomes a flushed run now. Returns whether there was one.
  mutating func flush(
    into handOff: inout HandOff, discarding discarded: inout (Value?, Value?), engine: Engine<Rule>
  ) -> Bool {
    let now = readClock()
    handOverDueWork(until: now, into: &handOff, discarding: &discarded.0, engine: engine)
    guard let value = rule.flushed(at: now) else { return false }
    // A flushed run starts even if `invalidate()` follows.
    decided(Run(value: value, time: now), isFlushed: true, into: &handOff, discarding: &discarded.1, engine: engine)
    return true
  }
}

/// A reference to an ``Engine`` that `@Sendable` closures may capture: what an async run's task and a
/// `waitUntilIdle()` hold while they last.
@usableFromInline
struct EngineReference<Rule: TimingRule>: @unchecked Sendable {
  // @unchecked Sendable: an Engine is thread-safe (see its comment); a reference to one may be shared.
  @usableFromInline let object: Engine<Rule>

  @usableFromInline
  init(_ object: Engine<Rule>) {
    self.object = object
  }
}

/// A weak reference to an ``Engine`` that `@Sendable` closures may capture: what timers and deliveries hold, so
/// that the clock (which the engine holds) never keeps an engine alive.
@usableFromInline
struct WeakEngine<Rule: TimingRule>: @unchecked Sendable {
  // @unchecked Sendable: an Engine is thread-safe (see its comment); a weak reference to one may be shared.
  @usableFromInline weak var object: Engine<Rule>?

  @usableFromInline
  init(_ object: Engine<Rule>) {
    self.object = object
  }
}
