public import Dispatch

/// Runs a closure once calls have paused: a debouncer waits for a quiet period of one interval.
///
/// Wrap the closure, call the debouncer as often as events arrive, and it decides, by its ``DebounceMode``,
/// which calls run the closure and when. The closure never runs inside ``call(_:)``.
///
/// ```
/// T = 3        0 1 2 3 4 5 6 7 8 9 0 1
/// calls        a b c d e f . . g . . .
/// leading      a . . . . . . . g . . .
/// trailing     . . . . . . . . f . . g
/// ```
///
/// ![The two debouncer modes on one burst of calls.](debouncer-modes)
///
/// `maxWait` bounds how long a never-ending burst can hold the action back:
///
/// ```
/// T = 2, M = 4  0 1 2 3 4 5 6 7 8 9
/// calls         a b c d e f g h . .
/// trailing      . . . . . . . . . h
/// maxWait 4     . . . . d . . . h .
/// leading       a . . . . . . . . .
/// lead., mW 4   a . . . e . . . . .
/// ```
///
/// ![maxWait bounding a burst that never pauses.](max-wait)
///
/// ```swift
/// // Search as the user types, 250 ms after the last
/// // key stroke, on a serial queue of your own.
/// let search = Debouncer<String>(
///   interval: .milliseconds(250), queue: work
/// ) { text in loader.load(text) }
/// search("s")
/// search("sw")   // only "sw" is searched
///
/// // Upload every logged event: after 2 s of quiet, and
/// // at least every 10 s while events keep coming.
/// let upload = Debouncer<[Event]>(
///   interval: .seconds(2), maxWait: .seconds(10), queue: logs,
///   reducing: { $0 += $1 }
/// ) { events in uploader.send(events) }
/// upload([event])
/// ```
///
/// A synchronous action runs on the debouncer's queue, or on the main actor; an async action runs where a
/// `Task { }` written at the same place would, its runs never overlapping (see ``Overlap``). Runs start in the
/// order the rules decided them (on a concurrent queue such as `.global()`, they may still run side by side).
/// Call ``invalidate()`` on teardown; deallocating the debouncer does the same. However many calls arrive, at most
/// one timer is armed: a call moves the deadline, and a timer that fires before it re-arms for the remainder.
public final class Debouncer<Value: Sendable>: ActionLimiter {
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

  /// The call path, specialized for `Value` where the limiter was made (see `Engine.specializedCall(_:)`).
  @usableFromInline let callPath: @Sendable (Value) -> Void

  /// Every public initializer ends here. `makeCallPath`'s default is evaluated in the (inlined, so specialized)
  /// public initializer, at the caller.
  @usableFromInline
  init(
    interval: Duration, mode: DebounceMode, maxWait: Duration?, clock: some RateLimitClock,
    reducing: Reducer<Value>?, target: ActionTarget<Value>,
    makeCallPath: (Engine<DebounceRule<Value>>, Reducer<Value>?) -> @Sendable (Value) -> Void = Engine.specializedCall
  ) {
    requireNonNegative(interval, "interval", of: "Debouncer")
    if let maxWait { requireNonNegative(maxWait, "maxWait", of: "Debouncer") }
    engine = Engine.make(
      rule: DebounceRule(mode: mode, interval: interval, maxWait: maxWait), clock: clock,
      target: target, reduce: reducing)
    callPath = makeCallPath(engine, reducing)
  }

  /// Creates a debouncer that runs `action` on `queue`.
  ///
  /// - Parameters:
  ///   - interval: T, the quiet period. Must not be negative: a negative interval traps with a message naming
  ///     it. A huge one saturates: "not again".
  ///   - mode: Which calls run and when; ``DebounceMode/trailing`` by default.
  ///   - maxWait: With `.trailing`, the longest a burst holds the action back; with `.leading`, the longest
  ///     between runs while calls keep coming. `nil` (the default) for no bound; below `interval` counts as
  ///     `interval`; negative traps with a message naming it.
  ///   - queue: Where `action` runs. A serial queue sees runs in the order they were decided.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default, a ``ManualClock`` in tests.
  ///   - reducing: How a call's value joins the held one (`.trailing`): `reducing(&held, value)`, in place, so a
  ///     run delivers every value called since the previous run, combined in call order. `nil` (the default):
  ///     the latest value wins. `.leading` holds nothing, so `reducing` changes nothing there. It runs under the
  ///     debouncer's lock: keep it quick, and do not call the debouncer from it.
  ///   - action: The closure to debounce. Released by ``invalidate()`` or when the debouncer is deallocated.
  @inlinable
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil,
    queue: DispatchQueue, clock: some RateLimitClock = .dispatch,
    reducing: (@Sendable (inout Value, Value) -> Void)? = nil, action: @escaping @Sendable (Value) -> Void
  ) {
    self.init(
      interval: interval, mode: mode, maxWait: maxWait, clock: clock, reducing: reducing,
      target: .queue(queue, action))
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
  ///   - reducing: How a call's value joins the held one; `nil`: the latest wins. See
  ///     ``init(interval:mode:maxWait:queue:clock:reducing:action:)``.
  ///   - action: The closure to debounce, run on the main actor.
  @inlinable
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil,
    clock: some RateLimitClock = .dispatch, reducing: (@Sendable (inout Value, Value) -> Void)? = nil,
    action: @escaping @MainActor (Value) -> Void
  ) {
    self.init(
      interval: interval, mode: mode, maxWait: maxWait, clock: clock, reducing: reducing,
      target: .mainActor(action, clock: clock))
  }

  /// Creates a debouncer of an async action: each run starts as a task, subject to `overlap`.
  ///
  /// The action runs where a `Task { }` written at the same place would: on the main actor inside a
  /// `@MainActor` type, on an actor inside its methods, on the global executor in nonisolated code, or where the
  /// closure says (`{ @MainActor value in … }`).
  ///
  /// ```swift
  /// @MainActor final class SearchModel {
  ///   var results: [String] = []
  ///   private var search: Debouncer<String>?
  ///   init(api: some SearchAPI) {
  ///     search = Debouncer<String>(
  ///       interval: .milliseconds(250), overlap: .cancelPrevious
  ///     ) { [weak self] text in
  ///       let found = try? await api.search(text)
  ///       self?.results = found ?? []  // on the main actor
  ///     }
  ///   }
  ///   func textChanged(_ text: String) { search?(text) }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - interval: T, the quiet period; must not be negative.
  ///   - mode: Which calls run and when; ``DebounceMode/trailing`` by default.
  ///   - maxWait: The longest a burst holds the action back (`nil`: unbounded); must not be negative.
  ///   - overlap: What a run does when the previous run has not returned. No default: it depends on the work.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default. With a ``ManualClock``, a run due
  ///     during `advance` is started (its task created) during that advance: `await` ``waitUntilIdle()`` next.
  ///   - reducing: How a call's value joins the held one, and a due run's value joins the waiting run's; `nil`:
  ///     the latest wins.
  ///   - action: The async closure to debounce.
  @inlinable
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil, overlap: Overlap,
    clock: some RateLimitClock = .dispatch, reducing: (@Sendable (inout Value, Value) -> Void)? = nil,
    @_inheritActorContext action: @escaping @isolated(any) @Sendable (Value) async -> Void
  ) {
    self.init(
      interval: interval, mode: mode, maxWait: maxWait, clock: clock, reducing: reducing,
      target: .tasks(overlap, AsyncAction(action)))
  }

  deinit {
    engine.ownerWentAway()
  }

  /// Reports an event with `value`; the mode decides whether and when the action runs with it.
  ///
  /// - Parameter value: The value the action receives if this call runs, or the latest (or, with `reducing`,
  ///   part of the combined value) when a held value runs.
  /// - Complexity: O(1): one lock, one clock read; no allocation and no timer while a burst is under way.
  @inlinable
  public func call(_ value: Value) {
    callPath(value)
  }

  /// Runs held-back work now: if a value is held, hands it over at once (it starts even if ``invalidate()``
  /// follows, and an async run is subject to ``Overlap``) and goes on as if that run had happened at its
  /// deadline: the debouncer is idle, so its next call starts a new burst with a new `maxWait` anchor.
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

  /// Whether a fresh debouncer would behave exactly as this one from now on. See ``ActionLimiter/isAtRest``.
  public var isAtRest: Bool { engine.isAtRest }

  /// Whether a value is held back waiting for its deadline (``DebounceMode/leading`` never holds one).
  public var isPending: Bool { engine.isPending }

  /// Whether a run was handed over and its action has not returned; see ``ActionLimiter/isRunning``.
  public var isRunning: Bool { engine.isRunning }

  /// Returns once ``isRunning`` is false; see ``ActionLimiter/waitUntilIdle()``.
  public func waitUntilIdle() async { await engine.waitUntilIdle() }
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
  @inlinable
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil,
    queue: DispatchQueue, clock: some RateLimitClock = .dispatch, action: @escaping @Sendable () -> Void
  ) {
    self.init(
      interval: interval, mode: mode, maxWait: maxWait, clock: clock, reducing: nil,
      target: .queue(queue) { action() })
  }

  /// Creates a debouncer of a closure without a value, run on the main actor.
  ///
  /// - Parameters:
  ///   - interval: T, the quiet period; must not be negative.
  ///   - mode: Which calls run and when; ``DebounceMode/trailing`` by default.
  ///   - maxWait: The longest a burst holds the action back (`nil`: unbounded); must not be negative.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default.
  ///   - action: The closure to debounce, run on the main actor.
  @inlinable
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil,
    clock: some RateLimitClock = .dispatch, action: @escaping @MainActor () -> Void
  ) {
    self.init(
      interval: interval, mode: mode, maxWait: maxWait, clock: clock, reducing: nil,
      target: .mainActor({ @MainActor (_: Void) in action() }, clock: clock))
  }

  /// Creates a debouncer of an async closure without a value; see
  /// ``init(interval:mode:maxWait:overlap:clock:reducing:action:)``.
  ///
  /// - Parameters:
  ///   - interval: T, the quiet period; must not be negative.
  ///   - mode: Which calls run and when; ``DebounceMode/trailing`` by default.
  ///   - maxWait: The longest a burst holds the action back (`nil`: unbounded); must not be negative.
  ///   - overlap: What a run does when the previous run has not returned.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default.
  ///   - action: The async closure to debounce, run where a `Task { }` written here would run.
  @inlinable
  public convenience init(
    interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil, overlap: Overlap,
    clock: some RateLimitClock = .dispatch,
    @_inheritActorContext action: @escaping @isolated(any) @Sendable () async -> Void
  ) {
    self.init(
      interval: interval, mode: mode, maxWait: maxWait, clock: clock, reducing: nil,
      target: .tasks(overlap, AsyncAction(action)))
  }
}
