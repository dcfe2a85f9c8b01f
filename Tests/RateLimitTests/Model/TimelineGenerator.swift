import RateLimit
import RateLimitStoreKit

/// Draws random timelines that dwell on the boundaries: gaps of 0, 1, T−1, T, T+1 and several T, bursts, long
/// idle gaps, flush, cancel, invalidate, dropping the object, calls from inside the action, a zero interval, and
/// maxWait below, at and above T.
struct TimelineGenerator {
  var random: SeededGenerator

  init(seed: UInt64) {
    random = SeededGenerator(seed: seed)
  }

  mutating func timeline(of kind: LimiterKind) -> ModelTimeline {
    let interval = pick([0, 1, 1, 2, 2, 3, 3, 3, 4, 5, 7])
    let maxWait = kind.isDebouncer ? self.maxWait(around: interval) : nil
    let count = Int.random(in: 1...40, using: &random)
    var steps: [ModelTimeline.Step] = []
    var nextID = 1
    for _ in 0..<count {
      let event = self.event(nextID: &nextID)
      steps.append(ModelTimeline.Step(gap: gap(around: interval), event: event))
    }
    steps[0].gap = Int.random(in: 0...2, using: &random)
    let reducing = Bool.random(using: &random)
    return ModelTimeline(kind: kind, interval: interval, maxWait: maxWait, reducing: reducing, steps: steps)
  }

  /// A timeline of an async action: a random overlap policy and run durations from 1 tick to a few T, no calls
  /// from inside the action.
  mutating func asyncTimeline(of kind: LimiterKind) -> ModelTimeline {
    var timeline = self.timeline(of: kind)
    let longest = Swift.max(2, timeline.interval * 3)
    let durations = (0..<Int.random(in: 1...4, using: &random)).map { _ in
      Int.random(in: 1...longest, using: &random)
    }
    timeline.async = AsyncSettings(overlap: Overlap.allCases.randomElement(using: &random)!, durations: durations)
    for index in timeline.steps.indices {
      if case .call(let payload) = timeline.steps[index].event {
        timeline.steps[index].event = .call(Payload(id: payload.id))
      }
    }
    return timeline
  }

  private mutating func maxWait(around interval: Int) -> Int? {
    switch Int.random(in: 0..<10, using: &random) {
    case 0..<4: nil
    case 4: 0
    case 5: Swift.max(interval - 1, 0)  // below T: counts as T
    case 6: interval  // at T
    case 7: interval + 1  // just above
    case 8: interval * 2
    default: interval * 3 + Int.random(in: 1...3, using: &random)
    }
  }

  private mutating func gap(around interval: Int) -> Int {
    switch Int.random(in: 0..<20, using: &random) {
    case 0..<5: 0  // several events at one instant
    case 5..<7: 1  // a burst
    case 7..<9: Swift.max(interval - 1, 0)
    case 9..<12: interval
    case 12..<14: interval + 1
    case 14..<16: interval * Int.random(in: 2...4, using: &random)
    case 16: interval * 10 + Int.random(in: 0...5, using: &random)  // a long idle gap
    default: Int.random(in: 0...(interval * 3 + 1), using: &random)
    }
  }

  private mutating func event(nextID: inout Int) -> ModelEvent {
    switch Int.random(in: 0..<200, using: &random) {
    case 0..<160:
      defer { nextID += 1 }
      return .call(Payload(id: nextID, reenters: Int.random(in: 0..<6, using: &random) == 0))
    case 160..<176: return .flush
    case 176..<190: return .cancel
    case 190..<195: return .invalidate
    default: return .drop
    }
  }

  private mutating func pick(_ choices: [Int]) -> Int {
    choices.randomElement(using: &random)!
  }
}
