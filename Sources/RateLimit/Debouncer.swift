public import Dispatch

/// Runs a closure once calls have paused: it waits for a quiet period of one interval.
///
/// Wrap the closure, call the debouncer as often as events arrive, and it decides, by its ``DebounceMode``,
/// which calls run the closure and when. The closure always runs on the debouncer's queue, never inside
/// ``call(_:)``.
///
/// ```
/// interval = 3 ticks      0 1 2 3 4 5 6 7 8 9
/// calls                   a b c . . d e . . .
/// .leading                a . . . . d . . . .
/// .trailing               . . . . . c . . . e
/// ```
///
/// `maxWait` bounds how long a never-ending burst can hold the action back:
///
/// ```
/// interval = 2, maxWait = 4     0 1 2 3 4 5 6 7 8 9
/// calls                         a b c d e f g h . .
/// .trailing                     . . . . . . . . . h
/// .trailing, maxWait 4          . . . . d . . . h .
/// .leading                      a . . . . . . . . .
/// .leading, maxWait 4           a . . . e . . . . .
/// ```
///
/// ```swift
/// // Search as the user types, 250 ms after the last key stroke, on a queue of your own.
/// let search = Debouncer<String>(interval: .milliseconds(250), queue: work) { text in loader.load(text) }
/// search("s")
/// search("sw")   // only "sw" is searched
///
/// // Upload logs after 2 s of quiet, but at least every 10 s while events keep coming.
/// let upload = Debouncer(interval: .seconds(2), maxWait: .seconds(10), queue: logs) { uploader.flush() }
/// upload()
/// ```
///
/// Every method is safe to call from any thread at once, and from inside the action. Call ``invalidate()`` on
/// teardown; deallocating the debouncer does the same. Timers hold the debouncer weakly, so it never keeps
/// itself alive. However many calls arrive, at most one timer is armed: a call moves the deadline, and a timer
/// that fires before it re-arms for the remainder.
public final class Debouncer<Value: Sendable>: Sendable {
  /// The quiet period (T). `.zero` runs every call, in order, with its own value.
  public var interval: Duration { engine.withState { $0.pointee.rule.interval } }
  /// The rule that decides which calls run and when.
  public var mode: DebounceMode { engine.withState { $0.pointee.rule.mode } }
  /// The longest a burst can hold the action back, as given (`nil`: unbounded). A value below ``interval``
  /// counts as ``interval``.
  public var maxWait: Duration? { engine.withState { $0.pointee.rule.maxWait } }
  // nonisolated(unsafe): `Engine` is a `ManagedBuffer`, which opts out of `Sendable`; it is thread-safe all the
  // same, every mutable byte guarded by its own mutex (see `Engine`). The reference itself never changes.
  @usableFromInline nonisolated(unsafe) let engine: Engine<DebounceRule<Value>>

  /// Creates a debouncer that runs `action` on `queue`.
  ///
  /// - Parameters:
  ///   - interval: T, the quiet period. Must not be negative: a negative interval traps with a message naming
  ///     it.
  ///   - mode: Which calls run and when; ``DebounceMode/trailing`` by default.
  ///   - maxWait: With `.trailing`, the longest a burst holds the action back; with `.leading`, the longest
  ///     between runs while calls keep coming. `nil` (the default) for no bound; below `interval` counts as
  ///     `interval`; negative traps with a message naming it.
  ///   - queue: Where `action` runs.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default, a ``ManualClock`` in tests.
  ///   - action: The closure to debounce. Released by ``invalidate()`` or when the debouncer is deallocated.
  public init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil,
    queue: DispatchQueue, clock: some RateLimitClock = .dispatch,
    action: @escaping @Sendable (Value) -> Void
  ) {
    requireNonNegative(interval, "interval", of: "Debouncer")
    if let maxWait { requireNonNegative(maxWait, "maxWait", of: "Debouncer") }
    self.engine = Engine.make(
      rule: DebounceRule(mode: mode, interval: interval, maxWait: maxWait), clock: clock, queue: queue,
      action: action)
  }

  /// Creates a debouncer that runs `action` on the main queue, isolated to the main actor.
  ///
  /// - Parameters:
  ///   - interval: T, the quiet period; must not be negative.
  ///   - mode: Which calls run and when; ``DebounceMode/trailing`` by default.
  ///   - maxWait: The longest a burst holds the action back (`nil`: unbounded); must not be negative.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default. With a ``ManualClock``, the action
  ///     runs inline when the clock is advanced from the main actor, and on the main queue (`advance` waiting for
  ///     it) when advanced from another thread.
  ///   - action: The closure to debounce, run on the main actor.
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil,
    clock: some RateLimitClock = .dispatch, action: @escaping @MainActor (Value) -> Void
  ) {
    self.init(
      interval: interval, mode: mode, maxWait: maxWait, queue: .main, clock: clock,
      action: MainActorAction.wrap(action, clock: clock))
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
  /// - Complexity: O(1): one lock, one clock read; no allocation and no timer while a burst is under way.
  @inlinable
  public func call(_ value: Value) {
    engine.call(value)
  }

  /// Same as ``call(_:)``, so the debouncer can be called like a function: `debouncer(value)`.
  ///
  /// - Parameter value: The value the action receives if this call runs.
  /// - Complexity: O(1).
  @inlinable
  public func callAsFunction(_ value: Value) {
    engine.call(value)
  }

  /// Runs held-back work now: if a value is held, hands it to the queue at once (it runs even if
  /// ``invalidate()`` follows) and goes idle, so the next call starts a new burst with a new `maxWait` anchor.
  /// With nothing held, does nothing.
  public func flush() {
    engine.flush()
  }

  /// Drops the held value and all timing state; the next call behaves like the very first. The debouncer stays
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

  /// Whether a value is held back waiting for its deadline (``DebounceMode/leading`` never holds one).
  public var isPending: Bool {
    engine.isPending
  }
}

extension Debouncer where Value == Void {
  /// Creates a debouncer of a closure without a value, run on `queue`.
  ///
  /// - Parameters:
  ///   - interval: T, the quiet period; must not be negative.
  ///   - mode: Which calls run and when; ``DebounceMode/trailing`` by default.
  ///   - maxWait: The longest a burst holds the action back (`nil`: unbounded); must not be negative.
  ///   - queue: Where `action` runs.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default.
  ///   - action: The closure to debounce.
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil,
    queue: DispatchQueue, clock: some RateLimitClock = .dispatch, action: @escaping @Sendable () -> Void
  ) {
    self.init(
      interval: interval, mode: mode, maxWait: maxWait, queue: queue, clock: clock,
      action: { (_: Void) in action() })
  }

  /// Creates a debouncer of a closure without a value, run on the main actor.
  ///
  /// - Parameters:
  ///   - interval: T, the quiet period; must not be negative.
  ///   - mode: Which calls run and when; ``DebounceMode/trailing`` by default.
  ///   - maxWait: The longest a burst holds the action back (`nil`: unbounded); must not be negative.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default.
  ///   - action: The closure to debounce, run on the main actor.
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil,
    clock: some RateLimitClock = .dispatch, action: @escaping @MainActor () -> Void
  ) {
    self.init(
      interval: interval, mode: mode, maxWait: maxWait, clock: clock, action: { @MainActor (_: Void) in action() })
  }

  /// Reports an event; the mode decides whether and when the action runs.
  ///
  /// - Complexity: O(1).
  @inlinable
  public func call() {
    engine.call(())
  }

  /// Same as ``call()``: `debouncer()`.
  ///
  /// - Complexity: O(1).
  @inlinable
  public func callAsFunction() {
    engine.call(())
  }
}
