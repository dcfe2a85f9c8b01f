/// The two debounce rules of SPEC's table, side by side. Pure: no locks, no clocks, no queues.
struct DebounceRule<Value: Sendable>: TimingRule {
  let mode: DebounceMode
  let interval: Duration
  /// `maxWait`, raised to `interval` when below it (SPEC: a `maxWait` below T counts as T).
  let maxWait: Duration?
  /// The latest value not yet run (`.trailing` only).
  private(set) var held: Value?
  /// Last call + T: the instant the quiet period ends. `nil` when idle.
  private(set) var quietEnd: Duration?
  /// `.trailing`: anchor + maxWait. `.leading`: last run + maxWait. `nil` without `maxWait`.
  private(set) var maxWaitEnd: Duration?

  init(mode: DebounceMode, interval: Duration, maxWait: Duration?) {
    self.mode = mode
    self.interval = interval
    self.maxWait = maxWait.map { max($0, interval) }
  }

  var deadline: Duration? {
    guard held != nil, let quietEnd else { return nil }
    guard let maxWaitEnd else { return quietEnd }
    return min(quietEnd, maxWaitEnd)
  }

  mutating func called(at now: Duration, with value: Value) -> Value? {
    // Quiet: no call at all in the last T (`now - lastCall >= T`), or the very first call.
    let isQuiet = quietEnd.map { now >= $0 } ?? true
    // Every call, run or not, restarts the quiet period.
    quietEnd = now.saturatingAdding(interval)
    switch mode {
    case .leading:
      // Runs when quiet, or (with maxWait M) when `now - lastRun >= M`.
      guard isQuiet || maxWaitEnd.map({ now >= $0 }) == true else { return nil }
      maxWaitEnd = maxWait.map { now.saturatingAdding($0) }
      return value
    case .trailing:
      // The first call after idle is the maxWait anchor; the latest value is held.
      if isQuiet { maxWaitEnd = maxWait.map { now.saturatingAdding($0) } }
      held = value
      return nil
    }
  }

  mutating func deadlineReached() -> Run<Value>? {
    guard let time = deadline, let value = held, let quietEnd else { return nil }
    held = nil
    if time >= quietEnd {
      // The quiet period ended: the burst is over.
      self.quietEnd = nil
      maxWaitEnd = nil
    } else if let maxWait {
      // A maxWait run: it becomes the new anchor, and the burst goes on.
      maxWaitEnd = time.saturatingAdding(maxWait)
    }
    return Run(value: value, time: time)
  }

  mutating func flushed(at now: Duration) -> Value? {
    guard let value = held else { return nil }
    // As if the run had happened at its deadline: idle; the next call starts a new burst and anchor.
    cancelled()
    return value
  }

  mutating func cancelled() {
    held = nil
    quietEnd = nil
    maxWaitEnd = nil
  }
}
