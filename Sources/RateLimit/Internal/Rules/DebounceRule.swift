/// The two debounce rules of SPEC's table, side by side. Pure: no locks, no clocks, no queues.
///
/// Instants that are not set hold a sentinel rather than `nil`, which keeps them 16 bytes each and the tests
/// short: ``Instant/distantPast`` for an end that has passed ("quiet"), ``Instant/distantFuture`` for one that
/// will never come ("no maxWait"). The stored properties are declared in the order that packs them tightest.
@usableFromInline
struct DebounceRule<Value: Sendable>: TimingRule {
  /// The value not yet run (`.trailing` only): the latest, or every call's combined with `reducing`.
  @usableFromInline var held: HeldValue<Value>
  @usableFromInline let mode: DebounceMode
  /// Whether a `maxWait` was given (a flag rather than an optional `Duration`: it packs beside `mode`).
  @usableFromInline let hasMaxWait: Bool
  @usableFromInline let interval: Duration
  /// `maxWait` as given when ``hasMaxWait``; ``waitLimit`` is what the rules use.
  @usableFromInline let maxWaitGiven: Duration
  /// Last call + T: the instant the quiet period ends. ``Instant/distantPast`` when idle.
  @usableFromInline var quietEnd = Instant.distantPast
  /// `.trailing`: anchor + maxWait. `.leading`: last run + maxWait. ``Instant/distantFuture`` without one.
  @usableFromInline var maxWaitEnd = Instant.distantFuture

  @usableFromInline
  init(mode: DebounceMode, interval: Duration, maxWait: Duration?, reduce: Reducer<Value>? = nil) {
    self.held = HeldValue(reduce: reduce)
    self.mode = mode
    self.interval = interval
    self.hasMaxWait = maxWait != nil
    self.maxWaitGiven = maxWait ?? .zero
  }

  /// `maxWait` as given.
  @usableFromInline
  var maxWait: Duration? { hasMaxWait ? maxWaitGiven : nil }

  /// `maxWait`, raised to `interval` when below it (SPEC: a `maxWait` below T counts as T).
  @inlinable
  var waitLimit: Duration? {
    guard hasMaxWait else { return nil }
    return Instant(maxWaitGiven) < Instant(interval) ? interval : maxWaitGiven
  }

  @inlinable
  var deadline: Instant? {
    guard !held.isEmpty else { return nil }
    return min(quietEnd, maxWaitEnd)
  }

  @inlinable
  mutating func called(
    at now: Instant, with value: Value, mayRunAtOnce: @autoclosure () -> Bool, displaced: inout Value?
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
      held.add(value, displacing: &displaced)
      return nil
    }
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
