public import Dispatch

/// Runs a closure at most once per interval, however often it is called.
///
/// Wrap the closure, call the throttler as often as events arrive, and it decides, by its ``ThrottleMode``,
/// which calls run the closure and when. The closure always runs on the throttler's queue, never inside
/// ``call(_:)``.
///
/// ```
/// interval = 3 ticks      0 1 2 3 4 5 6 7 8 9
/// calls                   a b c . . d e . . .
/// .leading                a . . . . d . . . .
/// .trailing               . . . c . . . . e .
/// .firstPerDuration       a . . c . . d . . e
/// ```
///
/// ```swift
/// // On the main actor: a button that cannot fire twice within a second.
/// let submit = Throttler(interval: .seconds(1)) { [weak self] in self?.submitOrder() }
/// submit()
///
/// // On a queue of your own, with a value: progress that reaches the server at most every 500 ms.
/// let report = Throttler<Double>(interval: .milliseconds(500), mode: .firstPerDuration, queue: uploads) {
///   progress in client.send(progress)
/// }
/// report(0.42)
/// ```
///
/// Every method is safe to call from any thread at once, and from inside the action. Call ``invalidate()`` on
/// teardown; deallocating the throttler does the same. Timers hold the throttler weakly, so it never keeps
/// itself alive.
public final class Throttler<Value: Sendable>: Sendable {
  /// The minimum time between runs (T). `.zero` runs every call, in order, with its own value.
  public var interval: Duration { engine.withState { $0.pointee.rule.interval } }
  /// The rule that decides which calls run and when.
  public var mode: ThrottleMode { engine.withState { $0.pointee.rule.mode } }
  // nonisolated(unsafe): `Engine` is a `ManagedBuffer`, which opts out of `Sendable`; it is thread-safe all the
  // same, every mutable byte guarded by its own mutex (see `Engine`). The reference itself never changes.
  @usableFromInline nonisolated(unsafe) let engine: Engine<ThrottleRule<Value>>

  /// Creates a throttler that runs `action` on `queue`.
  ///
  /// - Parameters:
  ///   - interval: T, the minimum time between runs. Must not be negative: a negative interval traps with a
  ///     message naming it.
  ///   - mode: Which calls run and when; ``ThrottleMode/leading`` by default.
  ///   - queue: Where `action` runs.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default, a ``ManualClock`` in tests.
  ///   - action: The closure to throttle. Released by ``invalidate()`` or when the throttler is deallocated.
  public init(
    interval: Duration, mode: ThrottleMode = .leading, queue: DispatchQueue,
    clock: some RateLimitClock = .dispatch, action: @escaping @Sendable (Value) -> Void
  ) {
    requireNonNegative(interval, "interval", of: "Throttler")
    self.engine = Engine.make(
      rule: ThrottleRule(mode: mode, interval: interval), clock: clock, queue: queue, action: action)
  }

  /// Creates a throttler that runs `action` on the main queue, isolated to the main actor.
  ///
  /// - Parameters:
  ///   - interval: T, the minimum time between runs. Must not be negative: a negative interval traps with a
  ///     message naming it.
  ///   - mode: Which calls run and when; ``ThrottleMode/leading`` by default.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default. With a ``ManualClock``, the action
  ///     runs inline when the clock is advanced from the main actor, and on the main queue (`advance` waiting for
  ///     it) when advanced from another thread.
  ///   - action: The closure to throttle, run on the main actor.
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading,
    clock: some RateLimitClock = .dispatch, action: @escaping @MainActor (Value) -> Void
  ) {
    self.init(
      interval: interval, mode: mode, queue: .main, clock: clock, action: MainActorAction.wrap(action, clock: clock))
  }

  deinit {
    engine.invalidate()
  }

  /// Reports an event with `value`; the mode decides whether and when the action runs with it.
  ///
  /// Never runs the action synchronously: a run is handed to the queue.
  ///
  /// - Parameter value: The value the action receives if this call runs (or is the latest when a held value
  ///   runs).
  /// - Complexity: O(1): one lock, one clock read; no allocation while a call only replaces a held value or is
  ///   dropped.
  @inlinable
  public func call(_ value: Value) {
    engine.call(value)
  }

  /// Same as ``call(_:)``, so the throttler can be called like a function: `throttler(value)`.
  ///
  /// - Parameter value: The value the action receives if this call runs.
  /// - Complexity: O(1).
  @inlinable
  public func callAsFunction(_ value: Value) {
    engine.call(value)
  }

  /// Runs held-back work now: if a value is held, hands it to the queue at once (it runs even if
  /// ``invalidate()`` follows) and goes on as if that run had happened at its deadline.
  ///
  /// ``ThrottleMode/firstPerDuration`` opens a new window of T from now; ``ThrottleMode/trailing`` is idle, so
  /// the next call opens a new window. With nothing held, does nothing.
  public func flush() {
    engine.flush()
  }

  /// Drops the held value and all timing state; the next call behaves like the very first. The throttler stays
  /// usable. A run already handed to the queue is not stopped.
  public func cancel() {
    engine.cancel()
  }

  /// Drops everything for good: from its return on, no run starts (held, scheduled, or handed to the queue but
  /// not yet started), the action and its captures are released, and later calls are ignored. A run already
  /// executing finishes; a flushed run still runs. Idempotent.
  public func invalidate() {
    engine.invalidate()
  }

  /// Whether a value is held back waiting for its deadline (``ThrottleMode/leading`` never holds one).
  public var isPending: Bool {
    engine.isPending
  }
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
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading, queue: DispatchQueue,
    clock: some RateLimitClock = .dispatch, action: @escaping @Sendable () -> Void
  ) {
    self.init(interval: interval, mode: mode, queue: queue, clock: clock, action: { (_: Void) in action() })
  }

  /// Creates a throttler of a closure without a value, run on the main actor.
  ///
  /// ```swift
  /// let reload = Throttler(interval: .milliseconds(300)) { [weak self] in self?.tableView.reloadData() }
  /// ```
  ///
  /// - Parameters:
  ///   - interval: T, the minimum time between runs; must not be negative.
  ///   - mode: Which calls run and when; ``ThrottleMode/leading`` by default.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default.
  ///   - action: The closure to throttle, run on the main actor.
  public convenience init(
    interval: Duration, mode: ThrottleMode = .leading,
    clock: some RateLimitClock = .dispatch, action: @escaping @MainActor () -> Void
  ) {
    self.init(interval: interval, mode: mode, clock: clock, action: { @MainActor (_: Void) in action() })
  }

  /// Reports an event; the mode decides whether and when the action runs.
  ///
  /// - Complexity: O(1).
  @inlinable
  public func call() {
    engine.call(())
  }

  /// Same as ``call()``: `throttler()`.
  ///
  /// - Complexity: O(1).
  @inlinable
  public func callAsFunction() {
    engine.call(())
  }
}
