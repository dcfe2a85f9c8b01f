/// SPEC.md's timing rules, written a second time, independently of the library: plain, slow, obviously correct.
///
/// Time is a whole number of ticks, and the model walks it one tick at a time. At every tick it does what SPEC
/// orders, in SPEC's order:
///
/// 1. work due at this tick runs first (a held value whose deadline is now);
/// 2. then the events of the tick, in order (`call`, `flush`, `cancel`, `invalidate`, dropping the object);
/// 3. then the runs those events handed to the queue, in order. On a `ManualClock` they run on the next advance,
///    still at this tick, before anything due later.
///
/// A run whose payload `reenters` calls the limiter again from inside the action, at the same tick. Nothing here
/// shares code with `Sources/RateLimit`: no deadlines, no timers, no `Instant`, just the words of SPEC's table
/// applied tick by tick.
struct ReferenceModel {
  let kind: LimiterKind
  /// T, in ticks.
  let interval: Int
  /// `maxWait` in ticks, already raised to T ("a maxWait below T counts as T").
  let maxWait: Int?

  /// The runs so far: when, and with which payload.
  private(set) var runs: [ModelRun] = []

  private var now = 0
  /// `invalidate()` or dropping the object happened: nothing starts any more, except flushed runs.
  private var invalidated = false
  /// The latest value waiting for its turn.
  private var held: Payload?
  /// Throttler.leading, Debouncer.leading: when the action last ran.
  private var lastRun: Int?
  /// Debouncers: when the last call came; `nil` when idle.
  private var lastCall: Int?
  /// Throttler.trailing: when the open window started. Throttler.firstPerDuration: when the window of the last
  /// run started.
  private var windowStart: Int?
  /// Debouncer.trailing with maxWait: the first call after idle, or the last maxWait run.
  private var anchor: Int?
  /// Runs handed to the queue and not started yet; a flushed one starts even after `invalidate()`.
  private var queue: [(payload: Payload, flushed: Bool)] = []

  init(kind: LimiterKind, interval: Int, maxWait: Int?) {
    self.kind = kind
    self.interval = interval
    self.maxWait = maxWait.map { Swift.max($0, interval) }
  }

  /// Plays `timeline` to the end (until nothing is held) and returns every run.
  static func runs(of timeline: ModelTimeline) -> [ModelRun] {
    var model = ReferenceModel(kind: timeline.kind, interval: timeline.interval, maxWait: timeline.maxWait)
    let events = timeline.eventsByTick
    let lastTick = events.keys.max() ?? 0
    var tick = 0
    while tick <= lastTick || model.isPending {
      model.tick(tick, events: events[tick] ?? [])
      tick += 1
    }
    return model.runs
  }

  /// Whether a value is held back (SPEC's `isPending`).
  var isPending: Bool { !invalidated && held != nil }

  /// One tick: due work, then the events, then what the events handed to the queue.
  mutating func tick(_ tick: Int, events: [ModelEvent], afterEach: (ReferenceModel) -> Void = { _ in }) {
    now = tick
    if !invalidated, let due = dueWork() { start(due) }
    startQueuedRuns()
    for event in events {
      apply(event)
      afterEach(self)
    }
    startQueuedRuns()
  }

  // MARK: The rules

  /// Step 1: the held value, if its time has come.
  private mutating func dueWork() -> Payload? {
    guard let value = held else { return nil }
    switch kind {
    case .throttleLeading, .debounceLeading:
      return nil  // leading modes never hold a value
    case .throttleTrailing:
      // "At t+T the action runs once with the latest value, and the throttler is idle again."
      guard let start = windowStart, now == start + interval else { return nil }
      held = nil
      windowStart = nil
      return value
    case .firstPerDuration:
      // "At the window's end, if a value is held it runs then and a new window of T opens from that run."
      guard let start = windowStart, now == start + interval else { return nil }
      held = nil
      windowStart = now
      return value
    case .debounceTrailing:
      // "The action runs T after the last call, with the latest value."
      if let last = lastCall, now == last + interval {
        held = nil
        return value
      }
      // "It also runs (latest value) at anchor + M ... after such a run the anchor is that run."
      if let maxWait, let start = anchor, now == start + maxWait {
        held = nil
        anchor = now
        return value
      }
      return nil
    }
  }

  private mutating func called(_ value: Payload) {
    switch kind {
    case .throttleLeading:
      // "Runs at once with its value if nothing ran in the last T (now − lastRun ≥ T, or no run yet)."
      if lastRun == nil || now - lastRun! >= interval {
        lastRun = now
        hand(value)
      }
    case .throttleTrailing:
      if interval == 0 { return hand(value) }  // "no limiting; every call runs, in order, with its own value"
      // "A call while idle opens a window [t, t+T). Calls inside only replace the held value."
      if windowStart == nil { windowStart = now }
      held = value
    case .firstPerDuration:
      // "A call while idle runs at once and opens a window of T. Calls inside are held (latest value wins)."
      if windowStart == nil || now - windowStart! >= interval {
        windowStart = now
        hand(value)
      } else {
        held = value
      }
    case .debounceTrailing:
      if interval == 0 { return hand(value) }
      // "Every call restarts a quiet period of T"; "the anchor is the first call after idle".
      let idle = lastCall == nil || now - lastCall! >= interval
      if idle { anchor = now }
      lastCall = now
      held = value
    case .debounceLeading:
      // "Runs at once if no call at all came in the last T (now − lastCall ≥ T, or the first call)";
      // "with maxWait M: a call also runs if now − lastRun ≥ M". Every call restarts the quiet period.
      let quiet = lastCall == nil || now - lastCall! >= interval
      let waitedLongEnough = maxWait != nil && lastRun != nil && now - lastRun! >= maxWait!
      lastCall = now
      if quiet || waitedLongEnough {
        lastRun = now
        hand(value)
      }
    }
  }

  private mutating func flushed() {
    // "No held value: nothing."
    guard let value = held else { return }
    held = nil
    queue.append((value, flushed: true))
    // "Continue as if that run had happened at its deadline."
    switch kind {
    case .firstPerDuration: windowStart = now  // "opens a new window of T from now"
    case .throttleTrailing: windowStart = nil  // idle
    case .debounceTrailing:  // idle: the next call starts a new burst, with a new maxWait anchor
      lastCall = nil
      anchor = nil
    case .throttleLeading, .debounceLeading: break
    }
  }

  private mutating func cancelled() {
    // "Drop the held value and all timing state; the next call behaves like the very first."
    held = nil
    lastRun = nil
    lastCall = nil
    windowStart = nil
    anchor = nil
  }

  // MARK: Events and runs

  private mutating func apply(_ event: ModelEvent) {
    guard !invalidated else { return }  // "ignores every later call"
    switch event {
    case .call(let value): called(value)
    case .flush: flushed()
    case .cancel: cancelled()
    case .invalidate, .drop:
      invalidated = true
      held = nil
    }
  }

  /// Hands `value` to the queue: it starts after the events of this tick.
  private mutating func hand(_ value: Payload) {
    queue.append((value, flushed: false))
  }

  private mutating func startQueuedRuns() {
    while !queue.isEmpty {
      let (value, flushed) = queue.removeFirst()
      // "From its return on, the throttler starts no run (... already handed to the queue but not started)",
      // except a flushed one: "it runs even if invalidate() follows".
      if flushed || !invalidated { start(value) }
    }
  }

  /// The action runs with `value`; a reentering payload calls the limiter again, from inside the action.
  private mutating func start(_ value: Payload) {
    runs.append(ModelRun(tick: now, payload: value))
    if value.reenters, !invalidated { called(value.reentry) }
  }
}
