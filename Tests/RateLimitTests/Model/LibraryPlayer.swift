import Dispatch
import RateLimit

/// Plays a ``ModelTimeline`` through the real library on a ``ManualClock``, side by side with the
/// ``ReferenceModel``, and reports the first way they differ.
///
/// One tick of the timeline is one second of virtual time. The clock is advanced once per tick that has events,
/// then the tick's events are applied in order; `run()` plays out what is left at the end.
enum LibraryPlayer {
  /// A description of how the library and the model differ on `timeline`, or `nil` if they agree on every run
  /// (tick and payload, in order), on `isPending` after every event, and on lifetime.
  static func mismatch(in timeline: ModelTimeline) -> String? {
    compare(timeline).mismatch
  }

  /// Plays `timeline` through both; returns the model's runs and how the library differs, if it does.
  static func compare(_ timeline: ModelTimeline) -> (runs: [ModelRun], mismatch: String?) {
    let clock = ManualClock()
    let recorder = Recorder<Payload>()
    let reentry = WeakBox<AnyObject>()
    var limiter: (any Limiting<Payload>)? = makeLimiter(
      timeline.kind, interval: .seconds(timeline.interval), maxWait: timeline.maxWait.map { .seconds($0) }, clock: clock
    ) { (payload: Payload) in
      recorder.record(payload, at: clock.now)
      if payload.reenters { (reentry.object as? any Limiting<Payload>)?.call(payload.reentry) }
    }
    reentry.object = limiter

    var model = ReferenceModel(kind: timeline.kind, interval: timeline.interval, maxWait: timeline.maxWait)
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
          switch event {
          case .call(let payload): limiter?.call(payload)
          case .flush: limiter?.flush()
          case .cancel: limiter?.cancel()
          case .invalidate: limiter?.invalidate()
          case .drop:
            limiter = nil
            if reentry.object != nil { problems.append("t=\(tick): still alive after the last reference was dropped") }
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

    let actual = recorder.runs.map { ModelRun(tick: Int($0.time.components.seconds), payload: $0.value) }
    if actual != model.runs {
      problems.append("runs:\n  library \(actual)\n  model   \(model.runs)")
    }
    withExtendedLifetime(limiter) {}
    return (model.runs, problems.isEmpty ? nil : problems.joined(separator: "\n"))
  }
}
