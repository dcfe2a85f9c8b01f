import Dispatch
import RateLimit

/// Plays a ``ModelTimeline`` through the real library on a ``ManualClock``, side by side with the
/// ``ReferenceModel``, and reports the first way they differ.
///
/// One tick of the timeline is one second of virtual time. Values are lists of payloads: a call passes one, and
/// with `reducing` the library combines them with `{ $0 += $1 }`.
enum LibraryPlayer {
  /// A description of how the library and the model differ on `timeline`, or `nil` if they agree.
  static func mismatch(in timeline: ModelTimeline) async -> String? {
    await compare(timeline).mismatch
  }

  /// Plays `timeline` through both; returns the model's runs and how the library differs, if it does.
  static func compare(_ timeline: ModelTimeline) async -> (runs: [ModelRun], mismatch: String?) {
    timeline.async == nil ? compareSynchronous(timeline) : await compareAsync(timeline)
  }

  static func reducer(_ timeline: ModelTimeline) -> (@Sendable (inout [Payload], [Payload]) -> Void)? {
    guard timeline.reducing else { return nil }
    return { @Sendable (held: inout [Payload], new: [Payload]) in held += new }
  }

  /// A synchronous action. The clock is advanced once per tick that has events, then the tick's events are
  /// applied in order; `run()` plays out what is left at the end. Compares every run (tick and value, in
  /// order), `isPending` after every event, and lifetime.
  static func compareSynchronous(_ timeline: ModelTimeline) -> (runs: [ModelRun], mismatch: String?) {
    let clock = ManualClock()
    let recorder = Recorder<[Payload]>()
    let reentry = WeakBox<AnyObject>()
    var limiter: (any Limiting<[Payload]>)? = makeLimiter(
      timeline.kind, interval: .seconds(timeline.interval), maxWait: timeline.maxWait.map { .seconds($0) },
      clock: clock, reducing: reducer(timeline)
    ) { (value: [Payload]) in
      recorder.record(value, at: clock.now)
      for payload in value where payload.reenters {
        (reentry.object as? any Limiting<[Payload]>)?.call([payload.reentry])
      }
    }
    reentry.object = limiter

    var model = ReferenceModel(timeline: timeline)
    let events = timeline.eventsByTick
    let lastTick = events.keys.max() ?? 0
    var problems: [String] = []
    var tick = 0
    while tick <= lastTick || model.isPending {
      let tickEvents = events[tick] ?? []
      var libraryPending: [Bool] = []
      if !tickEvents.isEmpty {
        clock.advance(to: .seconds(tick))
        for event in tickEvents {
          let before = recorder.count
          apply(event, to: &limiter)
          if event == .drop, reentry.object != nil {
            problems.append("t=\(tick): still alive after the last reference was dropped")
          }
          if recorder.count != before { problems.append("t=\(tick): the action ran inside \(event)") }
          libraryPending.append(limiter?.isPending ?? false)
        }
      }
      var modelPending: [Bool] = []
      model.tick(tick, events: tickEvents) { modelPending.append($0.isPending) }
      if libraryPending != modelPending {
        problems.append("t=\(tick): isPending after each event: library \(libraryPending), model \(modelPending)")
      }
      tick += 1
    }
    clock.run()
    if limiter?.isPending == true { problems.append("still pending after run()") }

    let actual = recorder.runs.map { ModelRun(tick: Int($0.time.components.seconds), value: $0.value) }
    if actual != model.runs {
      problems.append("runs:\n  library \(actual)\n  model   \(model.runs)")
    }
    withExtendedLifetime(limiter) {}
    return (model.runs, problems.isEmpty ? nil : problems.joined(separator: "\n"))
  }

  /// An async action that waits at a gate. Every tick is played: runs whose duration is up return first (the
  /// player opens their gates), then the clock is advanced (due work), then the events. After each step the
  /// player waits until the library has done what the model did: the runs the model started have arrived at
  /// their gates, and, when the model is idle, the library is too. Compares every run (start tick, value,
  /// cancelled), that runs never overlap, `isPending` and `isRunning` after every event, and lifetime.
  static func compareAsync(_ timeline: ModelTimeline) async -> (runs: [ModelRun], mismatch: String?) {
    let settings = timeline.async!
    let clock = ManualClock()
    // The tick being played: at its start, returns happen before the clock reaches it.
    let currentTick = Recorder<Int>()
    let gate = Gate<[Payload]>(noticesCancellation: false) { .seconds(currentTick.values.last ?? 0) }
    var limiter: (any Limiting<[Payload]>)? = makeAsyncLimiter(
      timeline.kind, interval: .seconds(timeline.interval), maxWait: timeline.maxWait.map { .seconds($0) },
      overlap: settings.overlap, clock: clock, reducing: reducer(timeline)
    ) { (value: [Payload]) in await gate.run(value) }
    weak let weakLimiter = limiter

    var model = ReferenceModel(timeline: timeline)
    var problems: [String] = []
    /// Waits for the library to catch up with the model; records a problem if it does not within a minute.
    func settle(_ step: String) async {
      let (started, idle) = (model.startedCount, !model.isRunning)
      // Only the gate goes into the guard's child task: a child holding the limiter could end up releasing it
      // last, on its own thread, after a `drop` the player has moved past.
      if gate.runs.count < started {
        guard await withinAMinute({ await gate.arrival(of: started) }) else {
          return problems.append("\(step): the library did not start the runs the model started")
        }
      }
      guard idle else { return }
      if let current = limiter {
        await current.waitUntilIdle()
      } else if !(await withinAMinute({ await gate.allReturned() })) {
        problems.append("\(step): a run of the dropped limiter never returned")
      }
    }

    let events = timeline.eventsByTick
    let lastTick = events.keys.max() ?? 0
    var tick = 0
    while problems.isEmpty && (tick <= lastTick || model.isPending || model.isRunning) {
      currentTick.record(tick)
      for (index, run) in gate.runs.enumerated() where !run.returned {
        if Int(run.startedAt.components.seconds) + settings.duration(ofRun: index) <= tick { gate.open(index) }
      }
      model.returnRuns(at: tick)
      await settle("t=\(tick), returns")
      clock.advance(to: .seconds(tick))
      model.settleDueWork()
      await settle("t=\(tick), due work")
      for event in events[tick] ?? [] {
        apply(event, to: &limiter)
        model.apply(event)
        await settle("t=\(tick), \(event)")
        if event == .drop, weakLimiter != nil {
          problems.append("t=\(tick): still alive after the last reference was dropped")
        }
        let library = (limiter?.isPending ?? false, limiter?.isRunning ?? model.isRunning)
        if library != (model.isPending, model.isRunning) {
          let expected = (model.isPending, model.isRunning)
          problems.append("t=\(tick) after \(event): isPending, isRunning: library \(library), model \(expected)")
        }
      }
      tick += 1
    }
    // A dropped limiter has no `waitUntilIdle()`: wait for its last run's return to be recorded.
    _ = await withinAMinute { await gate.allReturned() }
    let actual = gate.runs.map {
      ModelRun(tick: Int($0.startedAt.components.seconds), value: $0.value, cancelled: $0.wasCancelled)
    }
    if problems.isEmpty, actual != model.runs {
      problems.append("runs:\n  library \(actual)\n  model   \(model.runs)")
    }
    if gate.sawOverlap { problems.append("two runs overlapped") }
    // Let anything still waiting at a gate go, so that no task is left behind.
    for index in gate.runs.indices { gate.open(index) }
    withExtendedLifetime(limiter) {}
    return (model.runs, problems.isEmpty ? nil : problems.joined(separator: "\n"))
  }

  static func apply(_ event: ModelEvent, to limiter: inout (any Limiting<[Payload]>)?) {
    switch event {
    case .call(let payload): limiter?.call([payload])
    case .flush: limiter?.flush()
    case .cancel: limiter?.cancel()
    case .invalidate: limiter?.invalidate()
    case .drop: limiter = nil
    }
  }

  /// Runs `body`, giving up (and cancelling it) after a minute: a guard against a library that never does
  /// what the model expects, not a timing assumption. Returns whether `body` finished.
  static func withinAMinute(_ body: @escaping @Sendable () async -> Void) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        await body()
        return true
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(60))
        return false
      }
      let first = await group.next()!
      group.cancelAll()
      return first
    }
  }
}
