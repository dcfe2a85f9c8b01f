import Testing

/// The library against the ``ReferenceModel`` on thousands of random timelines.
///
/// Each run draws a fresh seed and prints it; `RATELIMIT_MODEL_SEED=<seed>` replays a run exactly.
/// `RATELIMIT_MODEL_TIMELINES=<n>` sets how many synchronous timelines each of the five limiters gets (4,000 by
/// default, so 20,000 in all, half of them reducing), and `RATELIMIT_MODEL_ASYNC_TIMELINES=<n>` how many async
/// ones (1,200 by default, so 6,000, every overlap policy, half reducing). On a mismatch the test shrinks the
/// timeline to a short one that still fails and prints both.
@Suite struct ModelComparisonTests {
  static let seed = TestEnvironment.integer("RATELIMIT_MODEL_SEED") ?? UInt64.random(in: 0...UInt64(UInt32.max))
  static let timelinesPerKind = Int(TestEnvironment.integer("RATELIMIT_MODEL_TIMELINES") ?? 4_000)
  static let asyncTimelinesPerKind = Int(TestEnvironment.integer("RATELIMIT_MODEL_ASYNC_TIMELINES") ?? 1_200)

  @Test(arguments: LimiterKind.allCases)
  func libraryMatchesTheModel(_ kind: LimiterKind) async {
    let seed = Self.seed &+ UInt64(LimiterKind.allCases.firstIndex(of: kind)!) << 32
    let stats = await Self.compare(kind, count: Self.timelinesPerKind, seed: seed) { $0.timeline(of: kind) }
    // The generator must reach the interesting cases, or the comparison proves little.
    #expect(stats.runs > Self.timelinesPerKind)
    #expect(stats.reentrantRuns > Self.timelinesPerKind / 20)
    if kind != .throttleLeading && kind != .debounceLeading {
      #expect(stats.combinedRuns > Self.timelinesPerKind / 20)
    }
  }

  @Test(arguments: LimiterKind.allCases)
  func asyncLibraryMatchesTheModel(_ kind: LimiterKind) async {
    let seed = Self.seed &+ UInt64(LimiterKind.allCases.firstIndex(of: kind)!) << 32 &+ 1 << 40
    let count = Self.asyncTimelinesPerKind
    let stats = await Self.compare(kind, count: count, seed: seed) { $0.asyncTimeline(of: kind) }
    #expect(stats.runs > count)
    #expect(stats.cancelledRuns > count / 50)
    #expect(stats.combinedRuns > count / 50)
  }

  struct Stats {
    var runs = 0
    var reentrantRuns = 0
    var combinedRuns = 0
    var cancelledRuns = 0
  }

  /// Compares `count` timelines that `make` draws; records the first mismatch, shrunk.
  static func compare(
    _ kind: LimiterKind, count: Int, seed: UInt64, make: (inout TimelineGenerator) -> ModelTimeline
  ) async -> Stats {
    var generator = TimelineGenerator(seed: seed)
    var stats = Stats()
    for index in 0..<count {
      let timeline = make(&generator)
      let comparison = await LibraryPlayer.compare(timeline)
      stats.runs += comparison.runs.count
      stats.reentrantRuns += comparison.runs.count { $0.value.contains { $0.id < 0 } }
      stats.combinedRuns += comparison.runs.count { $0.value.count > 1 }
      stats.cancelledRuns += comparison.runs.count(where: \.cancelled)
      guard comparison.mismatch != nil else { continue }
      let small = await Shrinker.shrink(timeline) { await LibraryPlayer.mismatch(in: $0) != nil }
      Issue.record(
        """
        The library and the model differ (RATELIMIT_MODEL_SEED=\(Self.seed), \(kind.rawValue) timeline #\(index), \
        shrunk from \(timeline.steps.count) to \(small.steps.count) events):
        \(small)
        \(await LibraryPlayer.mismatch(in: small) ?? "")
        """)
      break
    }
    print(
      "ModelComparisonTests: \(kind.rawValue): \(count) timelines, \(stats.runs) runs compared "
        + "(\(stats.reentrantRuns) from inside the action, \(stats.combinedRuns) combined, "
        + "\(stats.cancelledRuns) cancelled), RATELIMIT_MODEL_SEED=\(Self.seed)")
    return stats
  }

  @Test func theShrinkerKeepsTheFailureAndDropsTheRest() async {
    // A stand-in failure: "a flush after a call with id 3". The shrinker must keep exactly those two events.
    var generator = TimelineGenerator(seed: 7)
    var timeline = generator.timeline(of: .throttleTrailing)
    timeline.steps = (1...30).map { ModelTimeline.Step(gap: 2, event: .call(Payload(id: $0))) }
    timeline.steps.insert(ModelTimeline.Step(gap: 5, event: .flush), at: 10)
    let fails = { (timeline: ModelTimeline) -> Bool in
      guard let call = timeline.steps.firstIndex(where: { $0.event == .call(Payload(id: 3)) }) else { return false }
      return timeline.steps[call...].contains { $0.event == .flush }
    }
    let small = await Shrinker.shrink(timeline, stillFails: fails)
    #expect(small.steps.map(\.event) == [.call(Payload(id: 3)), .flush])
    #expect(small.steps.map(\.gap) == [0, 0])
  }
}
