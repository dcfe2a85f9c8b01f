/// Timelines as text, one token per tick, as the docs print them: `a . . d`. Several runs at one tick are
/// written together; a value `reducing` combined is written whole (`abc`).
public enum TextTimeline: Sendable {
  /// When each run started.
  public static func starts(_ outcome: RowOutcome, ticks: Int) -> String {
    line(outcome.runs.map { ($0.start, $0.value) }, ticks: ticks)
  }

  /// When each async run returned; a capital letter if its task was cancelled.
  public static func ends(_ outcome: RowOutcome, ticks: Int) -> String {
    line(
      outcome.runs.compactMap { run in run.end.map { ($0, run.cancelled ? run.value.uppercased() : run.value) } },
      ticks: ticks)
  }

  /// The calls of `scenario`.
  public static func calls(_ scenario: Scenario) -> String {
    line(scenario.calls.map { ($0.tick, $0.letter) }, ticks: scenario.ticks)
  }

  static func line(_ events: [(tick: Int, text: String)], ticks: Int) -> String {
    var tokens = Array(repeating: ".", count: ticks)
    for (tick, text) in events where tick < ticks {
      tokens[tick] = tokens[tick] == "." ? text : tokens[tick] + text
    }
    while tokens.count > 1 && tokens.last == "." { tokens.removeLast() }
    return tokens.joined(separator: " ")
  }
}
