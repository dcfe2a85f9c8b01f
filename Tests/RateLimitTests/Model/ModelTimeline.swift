import RateLimit
import Testing

/// The five limiters SPEC describes, as one list the model tests go through.
enum LimiterKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case throttleLeading = "Throttler.leading"
  case throttleTrailing = "Throttler.trailing"
  case firstPerDuration = "Throttler.firstPerDuration"
  case debounceLeading = "Debouncer.leading"
  case debounceTrailing = "Debouncer.trailing"

  var isDebouncer: Bool { self == .debounceLeading || self == .debounceTrailing }
  var testDescription: String { rawValue }
}

/// What a call carries: a unique id, and whether the action, when it runs with it, calls the limiter again.
struct Payload: Sendable, Hashable, CustomStringConvertible {
  let id: Int
  var reenters = false

  /// The call made from inside the action: same id, negated, and it does not re-enter again.
  var reentry: Payload { Payload(id: -id) }

  var description: String { reenters ? "\(id)↻" : "\(id)" }
}

/// One event of a model timeline.
enum ModelEvent: Sendable, Hashable, CustomStringConvertible {
  case call(Payload)
  case flush
  case cancel
  case invalidate
  /// Dropping the last reference to the limiter.
  case drop

  var description: String {
    switch self {
    case .call(let payload): "call(\(payload))"
    case .flush: "flush"
    case .cancel: "cancel"
    case .invalidate: "invalidate"
    case .drop: "drop"
    }
  }
}

/// A run: at which tick it started, with which value (the calls it delivers: one, or with `reducing` all those
/// combined since the previous run), and, for an async action, whether its task was cancelled before it
/// returned.
struct ModelRun: Sendable, Hashable, CustomStringConvertible {
  let tick: Int
  let value: [Payload]
  var cancelled = false
  var description: String {
    value.map(\.description).joined(separator: "+") + "@\(tick)" + (cancelled ? "✕" : "")
  }
}

/// How an async timeline's action behaves: its overlap policy, and how many ticks each run takes (the k-th run
/// started takes `durations[k % durations.count]`; its action does not notice cancellation, so it returns then).
struct AsyncSettings: Sendable, Hashable {
  var overlap: Overlap
  var durations: [Int]

  func duration(ofRun index: Int) -> Int { durations[index % durations.count] }
}

/// A random timeline, as data: the limiter, its interval and maxWait in ticks, and the events with the gap (in
/// ticks) before each.
struct ModelTimeline: Sendable, CustomStringConvertible {
  struct Step: Sendable, Hashable {
    var gap: Int
    var event: ModelEvent
  }

  var kind: LimiterKind
  var interval: Int
  var maxWait: Int?
  /// Whether calls combine (`reducing: { $0 += $1 }` on arrays of payloads) instead of replacing.
  var reducing = false
  /// `nil` for a synchronous action.
  var async: AsyncSettings? = nil
  var steps: [Step]

  /// The events, grouped by the tick they happen at, in order.
  var eventsByTick: [Int: [ModelEvent]] {
    var tick = 0
    var result: [Int: [ModelEvent]] = [:]
    for step in steps {
      tick += step.gap
      result[tick, default: []].append(step.event)
    }
    return result
  }

  /// One line per tick that has events, e.g. `t=3: call(2), flush`.
  var description: String {
    let header =
      "\(kind.rawValue), interval \(interval)" + (maxWait.map { ", maxWait \($0)" } ?? "")
      + (reducing ? ", reducing" : "")
      + (async.map { ", async \($0.overlap), durations \($0.durations)" } ?? "")
    let lines = eventsByTick.sorted { $0.key < $1.key }.map { tick, events in
      "  t=\(tick): " + events.map(\.description).joined(separator: ", ")
    }
    return ([header] + lines).joined(separator: "\n")
  }
}
