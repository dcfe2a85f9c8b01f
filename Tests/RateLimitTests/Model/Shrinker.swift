/// Makes a failing timeline short enough to read: drops events, shortens gaps and removes re-entry while the
/// failure stays, until nothing more can go.
enum Shrinker {
  static func shrink(
    _ timeline: ModelTimeline, stillFails: (ModelTimeline) async -> Bool
  ) async -> ModelTimeline {
    var best = timeline
    var changed = true
    while changed {
      changed = false
      for candidate in smaller(than: best) where await stillFails(candidate) {
        best = candidate
        changed = true
        break
      }
    }
    return best
  }

  /// Every timeline one step simpler than `timeline`, the biggest simplifications first.
  private static func smaller(than timeline: ModelTimeline) -> [ModelTimeline] {
    var candidates: [ModelTimeline] = []
    func with(_ change: (inout ModelTimeline) -> Void) {
      var candidate = timeline
      change(&candidate)
      candidates.append(candidate)
    }
    for index in timeline.steps.indices.reversed() {
      with { $0.steps.remove(at: index) }
    }
    for index in timeline.steps.indices {
      let gap = timeline.steps[index].gap
      for shorter in Set([0, 1, gap / 2, gap - 1]).sorted() where shorter >= 0 && shorter < gap {
        with { $0.steps[index].gap = shorter }
      }
      if case .call(let payload) = timeline.steps[index].event, payload.reenters {
        with { $0.steps[index].event = .call(Payload(id: payload.id)) }
      }
    }
    if timeline.maxWait != nil { with { $0.maxWait = nil } }
    if timeline.reducing { with { $0.reducing = false } }
    if let async = timeline.async, async.durations.count > 1 || async.durations != [1] {
      with { $0.async?.durations = [1] }
      for index in async.durations.indices where async.durations.count > 1 {
        with { $0.async?.durations.remove(at: index) }
      }
    }
    return candidates
  }
}
