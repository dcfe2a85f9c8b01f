public import Dispatch

/// Runs a closure at most once per interval, however often it is called: a throttler keeps a rhythm.
///
/// Wrap the closure, call the throttler as often as events arrive, and it decides, by its ``ThrottleMode``,
/// which calls run the closure and when. The closure never runs inside ``call(_:)``.
///
/// ```
/// T = 3        0 1 2 3 4 5 6 7 8 9 0 1
/// calls        a b c d e f . . g . . .
/// leading      a . . d . . . . g . . .
/// trailing     . . . c . . f . . . . g
/// firstPer…    a . . c . . f . . g . .
/// ```
///
/// ![The three throttler modes on one burst of calls.](throttler-modes)
///
/// ```swift
/// // On the main actor: a button that cannot fire twice
/// // within a second.
/// let submit = Throttler(interval: .seconds(1)) {
///   [weak self] in self?.submitOrder()
/// }
/// submit()
///
/// // An async action: no second order while one is in flight.
/// let send = Throttler(interval: .seconds(1), overlap: .dropNew) {
///   await api.send()
/// }
///
/// // Count taps per window, on a serial queue of your own.
/// let taps = Throttler<Int>(
///   interval: .milliseconds(300), mode: .trailing, queue: work,
///   reducing: { $0 += $1 }
/// ) { count in print("\(count) taps") }
/// ```
///
/// A synchronous action runs on the throttler's queue, or on the main actor; an async action runs where a
/// `Task { }` written at the same place would, its runs never overlapping (see ``Overlap``). Runs start in the
/// order the rules decided them (on a concurrent queue such as `.global()`, they may still run side by side).
/// Call ``invalidate()`` on teardown; deallocating the throttler does the same. Timers hold the throttler weakly,
/// so it never keeps itself alive.
public final class Throttler<Value: Sendable>: ActionLimiter {
  /// The minimum time between runs (T). `.zero` runs every call, in order, with its own value.
  public var interval: Duration { engine.withState { $0.pointee.rule.interval } }
  /// The rule that decides which calls run and when.
  public var mode: ThrottleMode { engine.withState { $0.pointee.rule.mode } }
  // nonisolated(unsafe): `Engine` is a `ManagedBuffer`, which opts out of `Sendable`; it is thread-safe all the
  // same, every mutable byte guarded by its own mutex (see `Engine`). The reference itself never changes.
  @usableFromInline nonisolated(unsafe) let engine: Engine<ThrottleRule<Value>>

  /// The call path, specialized for `Value` where the limiter was made (see `Engine.specializedCall(_:)`).
  @usableFromInline let callPath: @Sendable (Value) -> Void

  /// Every public initializer ends here. `makeCallPath`'s default is evaluated in the (inlined, so specialized)
  /// public initializer, at the caller.
  @usableFromInline
  init(
    interval: Duration, mode: ThrottleMode, clock: some RateLimitClock, reducing: Reducer<Value>?,
    target: ActionTarget<Value>,
    makeCallPath: (Engine<ThrottleRule<Value>>, Reducer<Value>?) -> @Sendable (Value) -> Void = Engine.specializedCall
  ) {
    requireNonNegative(interval, "interval", of: "Throttler")
    engine = Engine.make(
      rule: ThrottleRule(mode: mode, interval: interval), clock: clock, target: target,
      reduce: reducing)
    callPath = makeCallPath(engine, reducing)
  }

  /// Creates a throttler that runs `action` on `queue`.
  ///
  /// - Parameters:
  ///   - interval: T, the minimum time between runs. Must not be negative: a negative interval traps with a
  ///     message naming it. A huge one saturates: "not again".
  ///   - mode: Which calls run and when; ``ThrottleMode/leading`` by default.
  ///   - queue: Where `action` runs. A serial queue sees runs in the order they were decided.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default, a ``ManualClock`` in tests.
  ///   - reducing: How a call's value joins the held one where the mode holds a value (`.trailing`, and
  ///     `.firstPerDuration` inside a window): `reducing(&held, value)`, in place, so a run delivers every value
  ///     called since the previous run, combined in call order. `nil` (the default): the latest value wins.
  ///     `.leading` holds nothing, so `reducing` changes nothing there. It runs under the throttler's lock: keep
  ///     it quick, and do not call the throttler from it.
  ///   - action: The closure to throttle. Released by ``invalidate()`` or when the throttler is deallocated.
  @inlinable
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading, queue: DispatchQueue,
    clock: some RateLimitClock = .dispatch, reducing: (@Sendable (inout Value, Value) -> Void)? = nil,
    action: @escaping @Sendable (Value) -> Void
  ) {
    self.init(interval: interval, mode: mode, clock: clock, reducing: reducing, target: .queue(queue, action))
  }

  /// Creates a throttler that runs `action` on the main queue, isolated to the main actor.
  ///
  /// - Parameters:
  ///   - interval: T, the minimum time between runs; must not be negative.
  ///   - mode: Which calls run and when; ``ThrottleMode/leading`` by default.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default. With a ``ManualClock``, the action
  ///     runs inline when the clock is advanced from the main actor, and on the main queue (`advance` waiting for
  ///     it) when advanced from another thread.
  ///   - reducing: How a call's value joins the held one; `nil`: the latest wins. See
  ///     ``init(interval:mode:queue:clock:reducing:action:)``.
  ///   - action: The closure to throttle, run on the main actor.
  @inlinable
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading, clock: some RateLimitClock = .dispatch,
    reducing: (@Sendable (inout Value, Value) -> Void)? = nil, action: @escaping @MainActor (Value) -> Void
  ) {
    self.init(
      interval: interval, mode: mode, clock: clock, reducing: reducing,
      target: .mainActor(action, clock: clock))
  }

  /// Creates a throttler of an async action: each run starts as a task, subject to `overlap`.
  ///
  /// The action runs where a `Task { }` written at the same place would: on the main actor inside a
  /// `@MainActor` type, on an actor inside its methods, on the global executor in nonisolated code, or where the
  /// closure says (`{ @MainActor value in … }`).
  ///
  /// ```swift
  /// @MainActor final class OrderModel {
  ///   private var submit: Throttler<Void>?
  ///   init(api: some OrderAPI) {
  ///     submit = Throttler(
  ///       interval: .seconds(1), overlap: .dropNew
  ///     ) { await api.send() }
  ///   }
  ///   func tapped() { submit?() }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - interval: T, the minimum time between runs; must not be negative.
  ///   - mode: Which calls run and when; ``ThrottleMode/leading`` by default.
  ///   - overlap: What a run does when the previous run has not returned. No default: it depends on the work.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default. With a ``ManualClock``, a run due
  ///     during `advance` is started (its task created) during that advance: `await` ``waitUntilIdle()`` next.
  ///   - reducing: How a call's value joins the held one, and a due run's value joins the waiting run's; `nil`:
  ///     the latest wins.
  ///   - action: The async closure to throttle.
  @inlinable
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading, overlap: Overlap, clock: some RateLimitClock = .dispatch,
    reducing: (@Sendable (inout Value, Value) -> Void)? = nil,
    @_inheritActorContext action: @escaping @isolated(any) @Sendable (Value) async -> Void
  ) {
    self.init(
      interval: interval, mode: mode, clock: clock, reducing: reducing,
      target: .tasks(overlap, AsyncAction(action)))
  }

  deinit {
    engine.ownerWentAway()
  }

  /// Reports an event with `value`; the mode decides whether and when the action runs with it.
  ///
  /// - Parameter value: The value the action receives if this call runs, or the latest (or, with `reducing`,
  ///   part of the combined value) when a held value runs.
  /// - Complexity: O(1): one lock, one clock read; no allocation and no timer while a call only replaces a held
  ///   value or is dropped.
  @inlinable
  public func call(_ value: Value) {
    callPath(value)
  }

  /// Runs held-back work now: if a value is held, hands it over at once (it starts even if ``invalidate()``
  /// follows, and an async run is subject to ``Overlap``) and goes on as if that run had happened at its
  /// deadline: ``ThrottleMode/firstPerDuration`` opens a new window of T from now; the trailing mode is idle.
  ///
  /// - Returns: `true` if a held value was handed over, `false` if nothing was held.
  @discardableResult
  public func flush() -> Bool { engine.flush() }

  /// Drops the held value and all timing state; the next call behaves like the very first. A run handed over
  /// whose action has not started yet does not start, flushed or not; a running async run's task is cancelled.
  /// See ``ActionLimiter/cancel()``.
  public func cancel() { engine.cancel() }

  /// Teardown that loses nothing: flushes the held value, ignores later calls, lets every run in flight finish,
  /// then releases the action. See ``ActionLimiter/finish()``.
  public func finish() { engine.finish() }

  /// Drops everything for good; see ``ActionLimiter/invalidate()``.
  public func invalidate() { engine.invalidate() }

  /// Whether a fresh throttler would behave exactly as this one from now on. See ``ActionLimiter/isAtRest``.
  public var isAtRest: Bool { engine.isAtRest }

  /// Whether a value is held back waiting for its deadline (``ThrottleMode/leading`` never holds one).
  public var isPending: Bool { engine.isPending }

  /// Whether a run was handed over and its action has not returned; see ``ActionLimiter/isRunning``.
  public var isRunning: Bool { engine.isRunning }

  /// Returns once ``isRunning`` is false; see ``ActionLimiter/waitUntilIdle()``.
  public func waitUntilIdle() async { await engine.waitUntilIdle() }
}

extension Throttler where Value == Void {
  /// Creates a throttler of a closure without a value, run on `queue`.
  ///
  /// - Parameters:
  ///   - interval: T, the minimum time between runs; must not be negative.
  ///   - mode: Which calls run and when; ``ThrottleMode/leading`` by default.
  ///   - queue: Where `action` runs.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default.
  ///   - action: The closure to throttle.
  @inlinable
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading, queue: DispatchQueue,
    clock: some RateLimitClock = .dispatch, action: @escaping @Sendable () -> Void
  ) {
    self.init(interval: interval, mode: mode, clock: clock, reducing: nil, target: .queue(queue) { action() })
  }

  /// Creates a throttler of a closure without a value, run on the main actor.
  ///
  /// ```swift
  /// let reload = Throttler(interval: .milliseconds(300)) {
  ///   [weak self] in self?.tableView.reloadData()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - interval: T, the minimum time between runs; must not be negative.
  ///   - mode: Which calls run and when; ``ThrottleMode/leading`` by default.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default.
  ///   - action: The closure to throttle, run on the main actor.
  @inlinable
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading,
    clock: some RateLimitClock = .dispatch, action: @escaping @MainActor () -> Void
  ) {
    self.init(
      interval: interval, mode: mode, clock: clock, reducing: nil,
      target: .mainActor({ @MainActor (_: Void) in action() }, clock: clock))
  }

  /// Creates a throttler of an async closure without a value; see
  /// ``init(interval:mode:overlap:clock:reducing:action:)``.
  ///
  /// - Parameters:
  ///   - interval: T, the minimum time between runs; must not be negative.
  ///   - mode: Which calls run and when; ``ThrottleMode/leading`` by default.
  ///   - overlap: What a run does when the previous run has not returned.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default.
  ///   - action: The async closure to throttle, run where a `Task { }` written here would run.
  @inlinable
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading, overlap: Overlap, clock: some RateLimitClock = .dispatch,
    @_inheritActorContext action: @escaping @isolated(any) @Sendable () async -> Void
  ) {
    self.init(
      interval: interval, mode: mode, clock: clock, reducing: nil, target: .tasks(overlap, AsyncAction(action)))
  }
}
