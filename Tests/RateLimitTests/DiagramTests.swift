import RateLimit
import RateLimitDiagrams
import Testing

/// The documentation's diagrams are played through the library (the demo draws them as SVG with `--svg`);
/// here each one is checked against its timeline, the one the docs print.
@Suite struct DiagramTests {
  /// Per scenario: the expected runs of each row; for async rows, the starts and then the ends (a capital
  /// letter: returned because its task was cancelled).
  static let expected: [String: [String]] = [
    "modes": [
      "a . . d . . . . g",
      ". . . c . . f . . . . g",
      "a . . c . . f . . g",
      "a . . . . . . . g",
      ". . . . . . . . f . . g",
    ],
    "throttler-modes": ["a . . d . . . . g", ". . . c . . f . . . . g", "a . . c . . f . . g"],
    "debouncer-modes": ["a . . . . . . . g", ". . . . . . . . f . . g"],
    "max-wait": [". . . . . . . . . h", ". . . . d . . . h", "a", "a . . . e"],
    "reducing": [". . . abc . . def . . . . g", "a . . bc . . def . . g", ". . . . . . . . abcdef . . g"],
    "overlap": [
      "a . . . . c . . . . d", ". . . . . a . . . . c . . . . d",
      "a . b . c . . . . . d", ". . A . B . . . . c . . . . . d",
      "a . . . . . . . . . d", ". . . . . a . . . . . . . . . d",
    ],
  ]

  @Test(arguments: Scenario.all.map(\.id))
  func diagramMatchesItsTimeline(_ id: String) async {
    let scenario = Scenario.all.first { $0.id == id }!
    let outcomes = await Player.play(scenario)
    var lines: [String] = []
    for (row, outcome) in zip(scenario.rows, outcomes) {
      lines.append(TextTimeline.starts(outcome, ticks: scenario.ticks))
      if row.overlap != nil { lines.append(TextTimeline.ends(outcome, ticks: scenario.ticks)) }
    }
    #expect(lines == Self.expected[id])
    let svg = MarbleDiagram.svg(scenario, outcomes: outcomes)
    #expect(svg.hasPrefix("<svg "))
    #expect(svg.contains(scenario.title.split(separator: "(").first.map(String.init) ?? ""))
  }
}
