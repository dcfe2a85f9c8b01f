import Testing

/// The library against the ``ReferenceModel`` on thousands of random timelines.
///
/// Each run draws a fresh seed and prints it; `RATELIMIT_MODEL_SEED=<seed>` replays a run exactly, and
/// `RATELIMIT_MODEL_TIMELINES=<n>` sets how many timelines each of the five limiters gets (4,000 by default, so
/// 20,000 in all). On a mismatch the test shrinks the timeline to a short one that still fails and prints both.
@Suite struct ModelComparisonTests {
  static let seed = TestEnvironment.integer("RATELIMIT_MODEL_SEED") ?? UInt64.random(in: 0...UInt64(UInt32.max))
  static let timelinesPerKind = Int(TestEnvironment.integer("RATELIMIT_MODEL_TIMELINES") ?? 4_000)

  @Test(arguments: LimiterKind.allCases)
  func libraryMatchesTheModel(_ kind: LimiterKind) {
    let seed = Self.seed
    var generator = TimelineGenerator(seed: seed &+ UInt64(LimiterKind.allCases.firstIndex(of: kind)!) << 32)
    var runs = 0
    var reentrantRuns = 0
    defer {
      print(
        "ModelComparisonTests: \(kind.rawValue): \(Self.timelinesPerKind) timelines, \(runs) runs compared "
          + "(\(reentrantRuns) from inside the action), RATELIMIT_MODEL_SEED=\(seed)")
    }
    for index in 0..<Self.timelinesPerKind {
      let timeline = generator.timeline(of: kind)
      let comparison = LibraryPlayer.compare(timeline)
      runs += comparison.runs.count
      reentrantRuns += comparison.runs.count { $0.payload.id < 0 }
      guard comparison.mismatch != nil else { continue }
      let small = Shrinker.shrink(timeline) { LibraryPlayer.mismatch(in: $0) != nil }
      Issue.record(
        """
        The library and the model differ (RATELIMIT_MODEL_SEED=\(seed), \(kind.rawValue) timeline #\(index), \
        shrunk from \(timeline.steps.count) to \(small.steps.count) events):
        \(small)
        \(LibraryPlayer.mismatch(in: small) ?? "")
        """)
      return
    }
    // The generator must reach the interesting cases, or the comparison proves little.
    #expect(runs > Self.timelinesPerKind)
    #expect(reentrantRuns > Self.timelinesPerKind / 20)
  }

  @Test func theShrinkerKeepsTheFailureAndDropsTheRest() {
    // A stand-in failure: "a flush after a call with id 3". The shrinker must keep exactly those two events.
    var generator = TimelineGenerator(seed: 7)
    var timeline = generator.timeline(of: .throttleTrailing)
    timeline.steps = (1...30).map { ModelTimeline.Step(gap: 2, event: .call(Payload(id: $0))) }
    timeline.steps.insert(ModelTimeline.Step(gap: 5, event: .flush), at: 10)
    let fails = { (timeline: ModelTimeline) -> Bool in
      guard let call = timeline.steps.firstIndex(where: { $0.event == .call(Payload(id: 3)) }) else { return false }
      return timeline.steps[call...].contains { $0.event == .flush }
    }
    let small = Shrinker.shrink(timeline, stillFails: fails)
    #expect(small.steps.map(\.event) == [.call(Payload(id: 3)), .flush])
    #expect(small.steps.map(\.gap) == [0, 0])
  }
}
