import RateLimit
import Testing

/// One tick of virtual time in a ``Timeline``.
let tick = Duration.seconds(1)

/// A timeline written as data, like the diagrams in the docs: one token per tick, separated by spaces.
///
/// In `events`, a lowercase letter is a call with that letter as its value, `F` a `flush()`, `C` a `cancel()`,
/// `I` an `invalidate()`, `D` dropping the last reference, and `.` nothing; several in one token happen in that
/// order at the same tick (`aF`: call `a`, then flush). In `runs`, the letters are the values the action ran
/// with at that tick, in order. Trailing dots may be left out.
struct Timeline: Sendable, CustomTestStringConvertible {
  /// What the timeline shows, for the test report.
  let name: String
  /// T, in ticks.
  let interval: Int
  /// `maxWait`, in ticks (debouncers only).
  var maxWait: Int? = nil
  /// Calls and other events, per tick.
  let events: String
  /// The expected runs, per tick.
  let runs: String

  var testDescription: String { name }
}

extension Timeline {
  /// Plays the timeline on a fresh ``ManualClock`` through the limiter `make` builds, and checks the runs.
  ///
  /// It also checks, at every event, that the action never runs inside the call, and at the end that nothing
  /// is pending and a second `run()` of the clock changes nothing.
  func play(
    _ make: (_ clock: ManualClock, _ action: @escaping @Sendable (String) -> Void) -> any Limiting<String>,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let clock = ManualClock()
    let recorder = Recorder<String>()
    var limiter: (any Limiting<String>)? = make(clock) { value in recorder.record(value, at: clock.now) }
    for (index, token) in Self.tokens(events).enumerated() {
      clock.advance(to: tick * index)
      for event in token where event != "." {
        let before = recorder.count
        switch event {
        case "F": limiter?.flush()
        case "C": limiter?.cancel()
        case "I": limiter?.invalidate()
        case "D": limiter = nil
        default: limiter?.call(String(event))
        }
        #expect(
          recorder.count == before, "the action ran inside \(event) at tick \(index)", sourceLocation: sourceLocation)
      }
    }
    clock.run()
    #expect(limiter?.isPending != true, "still pending after run()", sourceLocation: sourceLocation)
    let actual = Self.render(recorder.runs)
    #expect(
      Self.normalized(actual) == Self.normalized(runs), "\n events: \(events)\n actual: \(actual)\n wanted: \(runs)",
      sourceLocation: sourceLocation)
    withExtendedLifetime(limiter) {}
  }

  /// Splits a timeline string into its per-tick tokens.
  static func tokens(_ line: String) -> [Substring] {
    line.split(separator: " ", omittingEmptySubsequences: true)
  }

  /// Renders runs in the same format as ``runs``; a run off the tick grid shows as `?`.
  static func render(_ runs: [(time: Duration, value: String)]) -> String {
    var ticks: [String] = []
    for run in runs {
      let (index, remainder) = run.time.components.seconds.quotientAndRemainder(dividingBy: tick.components.seconds)
      guard remainder == 0, run.time.components.attoseconds == 0, index >= 0 else {
        return "? off-grid run at \(run.time)"
      }
      while ticks.count <= Int(index) { ticks.append(".") }
      ticks[Int(index)] = ticks[Int(index)] == "." ? run.value : ticks[Int(index)] + run.value
    }
    return ticks.joined(separator: " ")
  }

  /// `line` without trailing empty ticks, single-spaced.
  static func normalized(_ line: String) -> String {
    var tokens = Self.tokens(line)
    while tokens.last == "." { tokens.removeLast() }
    return tokens.joined(separator: " ")
  }
}
