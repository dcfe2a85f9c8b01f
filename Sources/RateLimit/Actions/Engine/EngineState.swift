public import Dispatch

/// What one event leaves to do once the lock is released: deliveries to hand to the clock, a task to cancel.
/// Filled in place under the lock; a call that only replaces a held value or is dropped leaves it empty.
///
/// Plain data, with no reference in it, so that the call path pays nothing to destroy it: the task to cancel
/// waits in ``EngineState/taskToCancel`` and is taken out after the lock, only when ``cancelsTask`` says so.
@usableFromInline
struct HandOff: Sendable {
  /// When each run handed to a synchronous action's queue is due; one event decides at most three runs (an
  /// overdue held value, the call's own value, and, with a zero interval, the value it just made due).
  @usableFromInline var deliveries: (Instant?, Instant?, Instant?) = (nil, nil, nil)
  /// Whether the overlap policy, `cancel()` or `invalidate()` cancels the running task.
  @usableFromInline var cancelsTask = false

  @inlinable
  init() {}

  /// Whether there is nothing to do.
  @inlinable var isEmpty: Bool { deliveries.0 == nil && !cancelsTask }

  /// Adds a delivery due at `time`.
  @usableFromInline
  mutating func deliver(at time: Instant) {
    if deliveries.0 == nil {
      deliveries.0 = time
    } else if deliveries.1 == nil {
      deliveries.1 = time
    } else {
      precondition(deliveries.2 == nil, "one event decided more than three runs")
      deliveries.2 = time
    }
  }
}

/// Everything an ``Engine`` holds: immutable settings first, then what its lock guards, what every call touches
/// first (the rule, the armed deadline, the last clock reading, the action). Every function here is called with
/// the lock held; none of them runs user code, and none of them destroys a value or an action: what an event lets
/// go of is handed back to the caller, to be released once the lock is (a value's `deinit` may call back in).
@usableFromInline
struct EngineState<Rule: TimingRule>: Sendable {
  @usableFromInline typealias Value = Rule.Value

  /// The clock, or `nil` for ``DispatchClock``, whose time the call path reads directly. Immutable.
  @usableFromInline let clock: ClockBox?
  /// Where synchronous runs, and every timer, are handed. Immutable.
  @usableFromInline let queue: DispatchQueue
  /// The timing rule and its state.
  @usableFromInline var rule: Rule
  /// The deadline of the timer the engine relies on, ``Instant/distantFuture`` if none. The deadline is also the
  /// timer's identity: a timer that fires finds out whether it is still the one relied on by comparing its
  /// deadline. (A stale timer with the same deadline as the armed one fires at the same instant, so acting on
  /// it is the same.)
  @usableFromInline var armedDeadline = Instant.distantFuture
  /// The user's action; `nil` once invalidated: nothing starts any more, but flushed runs. (17 bytes: the flags
  /// below fill the rest of its last word.)
  @usableFromInline var action: Action<Value>?
  /// Whether calls, `flush()` and `cancel()` are acted on: `false` after `invalidate()` or `finish()`.
  @usableFromInline var acceptsCalls = true
  /// `finish()` was called and `invalidate()` was not: every run in flight is kept as a flushed one, and the
  /// action is released once the last of them returns.
  @usableFromInline var isFinishing = false
  /// Bumped by `cancel()` and by `invalidate()` after `finish()`: an async run created under an older epoch
  /// does not start.
  @usableFromInline var epoch: UInt32 = 0
  /// Synchronous actions: runs whose action is executing (more than one only on a concurrent queue).
  @usableFromInline var executing: UInt32 = 0
  /// Synchronous actions: runs handed to the queue and not started, in the order they were decided.
  @usableFromInline var handed = RunQueue<Value>()
  /// What only some engines need (async runs, waiters, the action kept for flushed runs): made with the engine for
  /// an async action, on first need otherwise, so a plain synchronous limiter pays 8 bytes for it.
  @usableFromInline var extras: EngineExtras<Value>?

  init(rule: Rule, clock: ClockBox?, target: ActionTarget<Value>, reduce: Reducer<Value>?) {
    self.rule = rule
    self.clock = clock
    self.queue = target.queue
    self.action = target.action
    // The rules get the reducer from the call path (`Engine.specializedCall`); the overlap slot keeps its own.
    extras = target.overlap.map { EngineExtras(slot: OverlapSlot(overlap: $0, reduce: reduce)) }
  }

  /// ``extras``, made if it is not there yet.
  mutating func ensureExtras() -> EngineExtras<Value> {
    if let extras { return extras }
    let made = EngineExtras<Value>(slot: nil)
    extras = made
    return made
  }

  /// What scheduling needs, copied out of the lock: the clock and the queue.
  @inlinable var schedulingState: SchedulingState { SchedulingState(clock: clock, queue: queue) }

  /// Whether no run is handed over, waiting, or executing: what `waitUntilIdle()` waits for.
  @inlinable var isIdle: Bool { handed.isEmpty && executing == 0 && extras?.slot?.isRunning != true }

  /// Whether a run that comes due now would start: `false` for `.dropNew` while a run is running.
  @inlinable var acceptsRunAtOnce: Bool { extras?.slot?.acceptsRun ?? true }

  // MARK: Time

  /// `now`, read from the clock, as the rule may see it: never earlier than the previous reading.
  ///
  /// A clock whose `now` goes back (a custom one; ``DispatchClock`` and ``ManualClock`` never do) counts the step
  /// as no time passing: the rule's instants move back with the clock and the timer is re-armed, so a limiter
  /// neither crashes nor waits for the clock to catch up with where it was.
  @inlinable @inline(__always)
  mutating func readClock() -> Instant {
    // Uptime never goes back: only a boxed clock is checked.
    guard let clock else { return Instant(uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds) }
    let reading = Instant(clock.clock.now)
    if reading < clock.latestReading { clockWentBack(to: reading, from: clock.latestReading) }
    clock.latestReading = reading
    return reading
  }

  @usableFromInline
  mutating func clockWentBack(to reading: Instant, from latestReading: Instant) {
    rule.clockWentBack(by: Instant.distance(from: reading, to: latestReading))
    // The armed timer's deadline belongs to the old time line; schedule one for the new deadline.
    armedDeadline = .distantFuture
  }

  /// The held value whose deadline has passed by `now`, if any: work due runs before anything else.
  @inlinable @inline(__always)
  mutating func settle(until now: Instant) -> Run<Value>? {
    guard let deadline = rule.deadline, deadline <= now else { return nil }
    return rule.deadlineReached()
  }

  /// Hands over the held value whose deadline has passed by `now`, if any (see ``settle(until:)``).
  @inlinable @inline(__always)
  mutating func handOverDueWork(
    until now: Instant, into handOff: inout HandOff, discarding discarded: inout Value?, engine: Engine<Rule>
  ) {
    if let run = settle(until: now) {
      decided(run, isFlushed: false, into: &handOff, discarding: &discarded, engine: engine)
    }
  }

  /// The deadline of the timer to schedule so that the rule's deadline is met, if the armed one does not do.
  @inlinable @inline(__always)
  mutating func timerToArm() -> Instant? {
    guard let deadline = rule.deadline else { return nil }
    if armedDeadline <= deadline { return nil }
    armedDeadline = deadline
    return deadline
  }

  /// Whether the limiter is at rest at `now` (``ActionLimiter/isAtRest``).
  mutating func isAtRest() -> Bool {
    guard isIdle else { return false }
    return !acceptsCalls || rule.isAtRest(at: readClock())
  }

  // MARK: Runs

  /// The rules decided `run`: hand it over. A synchronous run joins the queue of handed runs (the caller
  /// schedules its delivery); an async run goes to the overlap policy, which starts its task now (creating a
  /// task runs no user code), lets it wait, or drops it (its value, or a waiting value it replaces, goes to
  /// `discarded`). Inlinable: a call that joins a waiting run comes through here every time.
  @inlinable
  mutating func decided(
    _ run: Run<Value>, isFlushed: Bool, into handOff: inout HandOff, discarding discarded: inout Value?,
    engine: Engine<Rule>
  ) {
    let handedRun = HandedRun(value: run.value, isFlushed: isFlushed || isFinishing)
    guard let extras, extras.slot != nil else {
      handed.append(handedRun)
      handOff.deliver(at: run.time)
      return
    }
    let (decision, cancelRunning) = extras.slot!.due(handedRun, discarding: &discarded)
    if cancelRunning { cancelTask(into: &handOff) }
    if case .start(let started) = decision { start(started, engine: engine) }
  }

  /// Starts `run`'s task with the action (kept for flushed runs after `invalidate()`).
  @usableFromInline
  mutating func start(_ run: HandedRun<Value>, engine: Engine<Rule>) {
    guard case .async(let action)? = action ?? (run.isFlushed ? extras?.actionForFlushedRuns : nil) else {
      preconditionFailure("an async run started without its action")
    }
    extras!.task = engine.startTask(run, action: action, epoch: epoch)
  }

  /// A synchronous delivery reached the queue: takes the run at the head (whichever block got here first), if
  /// it may still start, with the action to run it. A run it may not start is handed back in `discarded`.
  @inlinable
  mutating func startNextHanded(discarding discarded: inout Value?) -> (Value, @Sendable (Value) -> Void)? {
    guard let run = handed.popFirst() else { return nil }
    let action = run.isFlushed ? (action ?? extras?.actionForFlushedRuns) : action
    guard case .sync(let body)? = action else {
      discarded = run.value
      return nil
    }
    executing += 1
    return (run.value, body)
  }

  /// An async run returned: starts the waiting run, if any.
  mutating func asyncRunReturned(engine: Engine<Rule>) {
    extras!.task = nil
    if let next = extras!.slot!.runReturned() { start(next, engine: engine) }
  }

  /// What is left to release once a run returned or was dropped: after `invalidate()` or `finish()`, the action
  /// is let go once nothing needs it any more. Returns it, to release outside the lock.
  @inlinable
  mutating func releaseUnneededAction() -> (Action<Value>?, Action<Value>?) {
    let stillNeeded = !handed.isEmpty || extras?.slot?.hasFlushedWaiting == true
    var released: (Action<Value>?, Action<Value>?) = (nil, nil)
    if !stillNeeded { released.0 = extras?.actionForFlushedRuns.take() }
    if isFinishing && isIdle { released.1 = action.take() }
    return released
  }

  /// `cancel()` after due work: forgets the held value and timing, drops every run not started yet (handed,
  /// waiting, or a task that has not reached its action), cancels the running one. Returns the handed runs it
  /// dropped; the held and waiting values go to `discarded`.
  mutating func cancel(
    into handOff: inout HandOff, discarding discarded: inout (Value?, Value?)
  ) -> RunQueue<Value> {
    discarded.0 = rule.cancelled()
    epoch &+= 1
    if extras?.slot?.cancelled(discarding: &discarded.1) == true { cancelTask(into: &handOff) }
    var dropped = RunQueue<Value>()
    swap(&dropped, &handed)
    return dropped
  }

  /// Marks the running task to be cancelled once the lock is released.
  @usableFromInline
  mutating func cancelTask(into handOff: inout HandOff) {
    extras?.taskToCancel = extras?.task
    handOff.cancelsTask = true
  }

  /// `finish()`: later calls are ignored; every run in flight is kept as a flushed one (deallocation stops none of
  /// them). The caller has flushed the held value already.
  mutating func finish() {
    acceptsCalls = false
    isFinishing = true
    handed.markAllFlushed()
    extras?.slot?.finished()
  }

  /// `invalidate()`: nothing starts any more but flushed runs (after `finish()`, nothing at all). Returns what it
  /// lets go of, to release outside the lock: the action, the dropped runs; the held and waiting values go to
  /// `discarded`.
  mutating func invalidate(
    into handOff: inout HandOff, discarding discarded: inout (Value?, Value?)
  ) -> (Action<Value>?, RunQueue<Value>) {
    acceptsCalls = false
    let released = action.take()
    if isFinishing {
      // After `finish()`, `invalidate()` cancels everything not yet returned, flushed or not: as `cancel()` does.
      isFinishing = false
      return (released, cancel(into: &handOff, discarding: &discarded))
    }
    discarded.0 = rule.cancelled()
    let dropped = handed.keepFlushed()
    if extras?.slot?.invalidated(discarding: &discarded.1) == true { cancelTask(into: &handOff) }
    if !handed.isEmpty || extras?.slot?.hasFlushedWaiting == true {
      let extras = ensureExtras()
      extras.actionForFlushedRuns = extras.actionForFlushedRuns ?? released
    }
    return (released, dropped)
  }

  /// Every waiter of `waitUntilIdle()`, and the observer, if nothing is running any more: to tell outside the lock.
  @inlinable
  mutating func idleNotice() -> IdleNotice {
    isIdle ? (extras?.idleWaiters.takeAll() ?? .none) : .none
  }
}

/// What only some engines need, apart from ``EngineState`` so that the others do not pay for it.
@usableFromInline
final class EngineExtras<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: an engine's extras are read and written only under that engine's lock, as the rest of
  // its state; only the engine holds them.

  /// Async actions: the overlap policy's state (running, waiting); `nil` for a synchronous action.
  @usableFromInline var slot: OverlapSlot<Value>?
  /// Async actions: the running run's task, to cancel.
  @usableFromInline var task: Task<Void, Never>?
  /// A task to cancel once the lock is released (see ``HandOff/cancelsTask``).
  @usableFromInline var taskToCancel: Task<Void, Never>?
  /// Tasks waiting in `waitUntilIdle()`, and the keyed container's observer.
  @usableFromInline var idleWaiters = IdleWaiters()
  /// After `invalidate()`, the action kept for flushed runs that have not started yet; `nil` otherwise.
  @usableFromInline var actionForFlushedRuns: Action<Value>?

  init(slot: OverlapSlot<Value>?) {
    self.slot = slot
  }
}

/// The clock and queue of an engine, to schedule with outside its lock.
@usableFromInline
struct SchedulingState: Sendable {
  @usableFromInline let clock: ClockBox?
  @usableFromInline let queue: DispatchQueue

  @usableFromInline
  init(clock: ClockBox?, queue: DispatchQueue) {
    self.clock = clock
    self.queue = queue
  }

  /// Schedules `work` on the clock, never on the caller's stack (see ``ClockBox/schedule(at:on:_:)``).
  @usableFromInline
  func schedule(at deadline: Instant, _ work: @escaping @Sendable () -> Void) {
    if let clock {
      clock.schedule(at: deadline.duration, on: queue, work)
    } else {
      DispatchClock().schedule(at: deadline.duration, on: queue, work)
    }
  }
}
