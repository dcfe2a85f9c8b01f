import RateLimit

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
///
/// With `reducing`, "where a rule says that a call replaces the held value ... the call instead combines its
/// value into the held one": values are lists of payloads, and combining appends.
///
/// An async action (SPEC "Async actions: the rules"): a run is started as a task where a synchronous one would be
/// handed to the queue, subject to `overlap`; it takes the ticks its timeline gives it. At a tick, a run whose
/// time is up returns first (and a waiting run starts), then due work, then the events.
struct ReferenceModel {
  let kind: LimiterKind
  /// T, in ticks.
  let interval: Int
  /// `maxWait` in ticks, already raised to T ("a maxWait below T counts as T").
  let maxWait: Int?
  let reducing: Bool
  let async: AsyncSettings?

  /// The runs so far: when, and with which payload.
  private(set) var runs: [ModelRun] = []

  private var now = 0
  /// `invalidate()` or dropping the object happened: nothing starts any more, except flushed runs.
  private var invalidated = false
  /// The latest value (or, reducing, all values combined) waiting for its turn.
  private var held: [Payload]?
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
  private var queue: [(value: [Payload], flushed: Bool)] = []

  /// Async: the run whose action has not returned: its index in `runs`, when it returns, whether it was flushed.
  private var running: (index: Int, end: Int, flushed: Bool)?
  /// Async: the run waiting for it ("at most one run waits").
  private var waiting: (value: [Payload], flushed: Bool)?

  init(timeline: ModelTimeline) {
    kind = timeline.kind
    interval = timeline.interval
    maxWait = timeline.maxWait.map { Swift.max($0, timeline.interval) }
    reducing = timeline.reducing
    async = timeline.async
  }

  /// Plays `timeline` to the end (until nothing is held or running) and returns every run.
  static func runs(of timeline: ModelTimeline) -> [ModelRun] {
    var model = ReferenceModel(timeline: timeline)
    let events = timeline.eventsByTick
    let lastTick = events.keys.max() ?? 0
    var tick = 0
    while tick <= lastTick || model.isPending || model.isRunning {
      model.tick(tick, events: events[tick] ?? [])
      tick += 1
    }
    return model.runs
  }

  /// Whether a value is held back (SPEC's `isPending`).
  var isPending: Bool { !invalidated && held != nil }
  /// Async: whether a run is running or waiting (SPEC's `isRunning`).
  var isRunning: Bool { running != nil }
  /// How many runs have started.
  var startedCount: Int { runs.count }

  /// One tick: returns, due work, the events, then what the events handed to the queue.
  mutating func tick(_ tick: Int, events: [ModelEvent], afterEach: (ReferenceModel) -> Void = { _ in }) {
    returnRuns(at: tick)
    settleDueWork()
    for event in events {
      apply(event)
      afterEach(self)
    }
    startQueuedRuns()
  }

  /// Async, the first thing at a tick: the running run whose time is up returns, and a waiting run starts.
  mutating func returnRuns(at tick: Int) {
    now = tick
    guard let current = running, current.end <= now else { return }
    running = nil
    // "Runs of one object never overlap: a run starts only after the previous run's action has returned."
    if let next = waiting {
      waiting = nil
      start(next.value, flushed: next.flushed)
    }
  }

  /// The second: work due at this tick runs before anything else done at it.
  mutating func settleDueWork() {
    if !invalidated, let due = dueWork() { hand(due) }
    startQueuedRuns()
  }

  // MARK: The rules

  /// Step 1: the held value, if its time has come.
  private mutating func dueWork() -> [Payload]? {
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

  /// "Calls inside only replace the held value" / with reducing: "the call instead combines its value into the
  /// held one"; "the first value held after idle, a run, a flush or a cancel is held as it is".
  private mutating func hold(_ value: [Payload]) {
    if reducing, let previous = held { held = previous + value } else { held = value }
  }

  /// 3.0: "a call that a rule runs at once ... and that .dropNew drops because a run is running does not count
  /// as a run: for the rules it is a call they dropped themselves".
  private var atOnceRunWouldBeDropped: Bool { async?.overlap == .dropNew && running != nil }

  private mutating func called(_ value: [Payload]) {
    switch kind {
    case .throttleLeading:
      // "Runs at once with its value if nothing ran in the last T (now − lastRun ≥ T, or no run yet)."
      if atOnceRunWouldBeDropped { return }
      if lastRun == nil || now - lastRun! >= interval {
        lastRun = now
        hand(value)
      }
    case .throttleTrailing:
      if interval == 0 { return hand(value) }  // "no limiting; every call runs, in order, with its own value"
      // "A call while idle opens a window [t, t+T). Calls inside only replace the held value."
      if windowStart == nil { windowStart = now }
      hold(value)
    case .firstPerDuration:
      // "A call while idle runs at once and opens a window of T. Calls inside are held (latest value wins)."
      if windowStart == nil || now - windowStart! >= interval {
        if atOnceRunWouldBeDropped { return }
        windowStart = now
        hand(value)
      } else {
        hold(value)
      }
    case .debounceTrailing:
      if interval == 0 { return hand(value) }
      // "Every call restarts a quiet period of T"; "the anchor is the first call after idle".
      let idle = lastCall == nil || now - lastCall! >= interval
      if idle { anchor = now }
      lastCall = now
      hold(value)
    case .debounceLeading:
      // "Runs at once if no call at all came in the last T (now − lastCall ≥ T, or the first call)";
      // "with maxWait M: a call also runs if now − lastRun ≥ M". Every call restarts the quiet period.
      let quiet = lastCall == nil || now - lastCall! >= interval
      let waitedLongEnough = maxWait != nil && lastRun != nil && now - lastRun! >= maxWait!
      lastCall = now
      if (quiet || waitedLongEnough) && !atOnceRunWouldBeDropped {
        lastRun = now
        hand(value)
      }
    }
  }

  private mutating func flushed() {
    // "No held value: nothing."
    guard let value = held else { return }
    held = nil
    hand(value, flushed: true)
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
    // Async: "the running run's task is cancelled and a waiting run is dropped."
    if let current = running { runs[current.index].cancelled = true }
    waiting = nil
    // 3.0: "A run handed over whose action has not started yet does not start, flushed or not."
    queue = []
    held = nil
    lastRun = nil
    lastCall = nil
    windowStart = nil
    anchor = nil
  }

  // MARK: Events and runs

  mutating func apply(_ event: ModelEvent) {
    guard !invalidated else { return }  // "ignores every later call"
    switch event {
    case .call(let payload): called([payload])
    case .flush: flushed()
    case .cancel: cancelled()
    case .invalidate, .drop:
      invalidated = true
      held = nil
      // Async: "the running run's task is cancelled (unless it is a flushed run) and a waiting run is dropped
      // (unless it is a flushed run)".
      if let current = running, !current.flushed { runs[current.index].cancelled = true }
      if let next = waiting, !next.flushed { waiting = nil }
    }
  }

  /// The rules decided a run. Synchronous: handed to the queue, to start after the events of this tick. Async:
  /// "started as a task, subject to overlap".
  private mutating func hand(_ value: [Payload], flushed: Bool = false) {
    guard let async else { return queue.append((value, flushed)) }
    guard running != nil else { return start(value, flushed: flushed) }
    switch async.overlap {
    case .dropNew:
      return  // "the run is dropped; its value is not delivered"
    case .cancelPrevious:
      runs[running!.index].cancelled = true
      fallthrough
    case .waitForPrevious:
      // "A run that becomes due while another is waiting replaces it ... or, with reducing, combined with it."
      // A waiting run that holds a flushed value stays flushed (the library's choice, in its docs).
      if reducing, let previous = waiting {
        waiting = (previous.value + value, previous.flushed || flushed)
      } else {
        waiting = (value, (waiting?.flushed ?? false) || flushed)
      }
    }
  }

  private mutating func startQueuedRuns() {
    while !queue.isEmpty {
      let (value, flushed) = queue.removeFirst()
      // "From its return on, the throttler starts no run (... already handed to the queue but not started)",
      // except a flushed one: "it runs even if invalidate() follows".
      if flushed || !invalidated { start(value, flushed: flushed) }
    }
  }

  /// The action starts with `value`. Synchronous: a reentering payload calls the limiter again, from inside the
  /// action. Async: it runs until its duration is up.
  private mutating func start(_ value: [Payload], flushed: Bool) {
    runs.append(ModelRun(tick: now, value: value))
    if let async {
      running = (runs.count - 1, now + async.duration(ofRun: runs.count - 1), flushed)
      return
    }
    for payload in value where payload.reenters && !invalidated { called([payload.reentry]) }
  }
}
