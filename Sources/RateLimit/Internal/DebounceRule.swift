/// The two debounce rules of SPEC's table, side by side. Pure: no locks, no clocks, no queues.
@usableFromInline
struct DebounceRule<Value: Sendable>: TimingRule {
  @usableFromInline let mode: DebounceMode
  @usableFromInline let interval: Duration
  /// `maxWait`, raised to `interval` when below it (SPEC: a `maxWait` below T counts as T).
  @usableFromInline let maxWait: Duration?
  /// The latest value not yet run (`.trailing` only).
  @usableFromInline var held: Value?
  /// Last call + T: the instant the quiet period ends. `nil` when idle.
  @usableFromInline var quietEnd: Instant?
  /// `.trailing`: anchor + maxWait. `.leading`: last run + maxWait. `nil` without `maxWait`.
  @usableFromInline var maxWaitEnd: Instant?

  @usableFromInline
  init(mode: DebounceMode, interval: Duration, maxWait: Duration?) {
    self.mode = mode
    self.interval = interval
    self.maxWait = maxWait.map { max($0, interval) }
  }

  /// When the held value runs: the end of the quiet period, or the maxWait deadline if that comes first; `nil`
  /// when nothing is held. Stored, not computed, because the call path reads it up to three times; every
  /// mutating method ends by bringing it up to date.
  @usableFromInline private(set) var deadline: Instant?

  /// Recomputes ``deadline`` from the state.
  @inlinable
  mutating func updateDeadline() {
    guard held != nil, let quietEnd else {
      deadline = nil
      return
    }
    guard let maxWaitEnd else {
      deadline = quietEnd
      return
    }
    deadline = min(quietEnd, maxWaitEnd)
  }

  @inlinable
  mutating func called(at now: Instant, with value: Value) -> Value? {
    // Quiet: no call at all in the last T (`now - lastCall >= T`), or the very first call.
    let isQuiet = quietEnd.map { now >= $0 } ?? true
    // Every call, run or not, restarts the quiet period.
    quietEnd = now + interval
    switch mode {
    case .leading:
      // Runs when quiet, or (with maxWait M) when `now - lastRun >= M`.
      guard isQuiet || maxWaitEnd.map({ now >= $0 }) == true else { return nil }
      maxWaitEnd = maxWait.map { now + $0 }
      return value
    case .trailing:
      // The first call after idle is the maxWait anchor; the latest value is held.
      if isQuiet { maxWaitEnd = maxWait.map { now + $0 } }
      held = value
      updateDeadline()
      return nil
    }
  }

  @inlinable
  mutating func deadlineReached() -> Run<Value>? {
    guard let time = deadline, let value = held, let quietEnd else { return nil }
    held = nil
    if time >= quietEnd {
      // The quiet period ended: the burst is over.
      self.quietEnd = nil
      maxWaitEnd = nil
    } else if let maxWait {
      // A maxWait run: it becomes the new anchor, and the burst goes on.
      maxWaitEnd = time + maxWait
    }
    updateDeadline()
    return Run(value: value, time: time)
  }

  @usableFromInline
  mutating func flushed(at now: Instant) -> Value? {
    guard let value = held else { return nil }
    // As if the run had happened at its deadline: idle; the next call starts a new burst and anchor.
    cancelled()
    return value
  }

  @usableFromInline
  mutating func cancelled() {
    held = nil
    quietEnd = nil
    maxWaitEnd = nil
    deadline = nil
  }

  @usableFromInline
  mutating func clockWentBack(by jump: Duration) {
    quietEnd = quietEnd.map { $0 - jump }
    maxWaitEnd = maxWaitEnd.map { $0 - jump }
    updateDeadline()
  }
}
