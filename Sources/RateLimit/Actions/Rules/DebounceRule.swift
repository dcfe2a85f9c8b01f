/// The two debounce rules of SPEC's table, side by side. Pure: no locks, no clocks, no queues.
///
/// Instants that are not set hold a sentinel rather than `nil`, which keeps them 16 bytes each and the tests
/// short: ``Instant/distantPast`` for an end that has passed ("quiet"), ``Instant/distantFuture`` for one that
/// will never come ("no maxWait"). The stored properties are declared in the order that packs them tightest, and a
/// `maxWait` is kept out of line (``MaxWait``): most debouncers have none and do not pay its 32 bytes.
@usableFromInline
struct DebounceRule<Value: Sendable>: TimingRule {
  /// The value not yet run (`.trailing` only): the latest, or every call's combined with `reducing`.
  @usableFromInline var held: HeldValue<Value>
  @usableFromInline let mode: DebounceMode
  @usableFromInline let interval: Duration
  /// Last call + T: the instant the quiet period ends. ``Instant/distantPast`` when idle.
  @usableFromInline var quietEnd = Instant.distantPast
  /// The `maxWait`, if one was given, and when it next forces a run.
  @usableFromInline var maxWaitState: MaxWait?

  @usableFromInline
  init(mode: DebounceMode, interval: Duration, maxWait: Duration?) {
    self.held = HeldValue()
    self.mode = mode
    self.interval = interval
    self.maxWaitState = maxWait.map { MaxWait(given: $0, interval: interval) }
  }

  /// `maxWait` as given.
  @usableFromInline
  var maxWait: Duration? { maxWaitState?.given }

  /// `maxWait`, raised to `interval` when below it (SPEC: a `maxWait` below T counts as T).
  @inlinable
  var waitLimit: Duration? { maxWaitState?.limit }

  /// `.trailing`: anchor + maxWait. `.leading`: last run + maxWait. ``Instant/distantFuture`` without one.
  @inlinable @inline(__always)
  var maxWaitEnd: Instant {
    get { maxWaitState?.end ?? .distantFuture }
    set { maxWaitState?.end = newValue }
  }

  @inlinable @inline(__always)
  var deadline: Instant? {
    guard !held.isEmpty else { return nil }
    return min(quietEnd, maxWaitEnd)
  }

  @inlinable @inline(__always)
  mutating func called(
    at now: Instant, with value: Value, reducing reduce: @autoclosure () -> Reducer<Value>?,
    mayRunAtOnce: @autoclosure () -> Bool,
    displaced: inout Value?
  ) -> Value? {
    // Quiet: no call at all in the last T (`now - lastCall >= T`), or the very first call.
    let isQuiet = !(now < quietEnd)
    // Every call, run or not, restarts the quiet period.
    quietEnd = now + interval
    switch mode {
    case .leading:
      // Runs when quiet, or (with maxWait M) when `now - lastRun >= M`.
      guard isQuiet || !(now < maxWaitEnd), mayRunAtOnce() else { return nil }
      if let waitLimit { maxWaitEnd = now + waitLimit }
      return value
    case .trailing:
      // The first call after idle is the maxWait anchor; the latest value is held.
      if isQuiet, let waitLimit { maxWaitEnd = now + waitLimit }
      held.add(value, reducing: reduce(), displacing: &displaced)
      return nil
    }
  }

  @inlinable @inline(__always)
  mutating func calledMidBurst(
    at now: Instant, with value: Value, reducing reduce: @autoclosure () -> Reducer<Value>?, displaced: inout Value?
  ) -> Bool {
    // Inside a burst, and no maxWait due: `.leading` drops the call, `.trailing` joins it to the held value. Either
    // way the quiet period restarts and the anchor stays.
    guard now < quietEnd else { return false }
    if let maxWait = maxWaitState, !(now < maxWait.end) { return false }
    if mode == .trailing {
      guard !held.isEmpty else { return false }
      held.add(value, reducing: reduce(), displacing: &displaced)
    }
    quietEnd = now + interval
    return true
  }

  @inlinable
  mutating func deadlineReached() -> Run<Value>? {
    guard let value = held.take() else { return nil }
    let time = min(quietEnd, maxWaitEnd)
    if !(time < quietEnd) {
      // The quiet period ended: the burst is over.
      quietEnd = .distantPast
      maxWaitEnd = .distantFuture
    } else if let waitLimit {
      // A maxWait run: it becomes the new anchor, and the burst goes on.
      maxWaitEnd = time + waitLimit
    }
    return Run(value: value, time: time)
  }

  @usableFromInline
  mutating func flushed(at now: Instant) -> Value? {
    guard let value = held.take() else { return nil }
    // As if the run had happened at its deadline: idle; the next call starts a new burst and anchor.
    quietEnd = .distantPast
    maxWaitEnd = .distantFuture
    return value
  }

  @usableFromInline
  mutating func cancelled() -> Value? {
    quietEnd = .distantPast
    maxWaitEnd = .distantFuture
    return held.take()
  }

  @usableFromInline
  func isAtRest(at now: Instant) -> Bool {
    // Once the quiet period is over, a call is quiet and resets the maxWait anchor or last run: a first call.
    held.isEmpty && !(now < quietEnd)
  }

  @usableFromInline
  mutating func clockWentBack(by jump: Duration) {
    quietEnd = quietEnd - jump
    if maxWaitEnd < .distantFuture { maxWaitEnd = maxWaitEnd - jump }
  }
}

/// A debouncer's `maxWait`: the limit as given and as the rules use it, and the instant it next forces a run. Out of
/// line, so that a debouncer without one pays 8 bytes for it rather than 32; copied on write, so the rule is still a
/// value.
@usableFromInline
struct MaxWait: Sendable {
  @usableFromInline
  final class Storage: @unchecked Sendable {
    // @unchecked Sendable: `end` is only written through `MaxWait`, after making the storage unique (copy on
    // write), by the one owner of the rule, under its engine's lock. That is also why its accesses need no
    // dynamic exclusivity check (`@exclusivity(unchecked)`): the check cost 226 instructions a call.
    @usableFromInline let given: Duration
    @usableFromInline let limit: Duration
    @exclusivity(unchecked) @usableFromInline var end: Instant

    @usableFromInline
    init(given: Duration, limit: Duration, end: Instant) {
      self.given = given
      self.limit = limit
      self.end = end
    }
  }

  @usableFromInline var storage: Storage

  init(given: Duration, interval: Duration) {
    let limit = Instant(given) < Instant(interval) ? interval : given
    storage = Storage(given: given, limit: limit, end: .distantFuture)
  }

  @inlinable var given: Duration { storage.given }
  @inlinable var limit: Duration { storage.limit }

  @inlinable
  var end: Instant {
    get { storage.end }
    set {
      if !isKnownUniquelyReferenced(&storage) {
        storage = Storage(given: storage.given, limit: storage.limit, end: storage.end)
      }
      storage.end = newValue
    }
  }
}
