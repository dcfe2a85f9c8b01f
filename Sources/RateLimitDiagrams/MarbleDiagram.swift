import RateLimit

/// A scenario drawn as an SVG marble diagram: one row per limiter under the row of calls, one column per tick.
///
/// Calls are hollow marbles; runs are filled ones, labelled with the value they delivered. Shading shows what
/// the rule is waiting for: a throttler's window (from the run for `.leading` and `.firstPerDuration`, up to
/// the run for `.trailing`), a debouncer's quiet period after each call. An async run is a bar from its start
/// to its return, ending in a cross if its task was cancelled. The drawing is plain SVG 1.1 with a white
/// background, so it reads the same in a browser, in DocC (light or dark) and on GitHub.
public enum MarbleDiagram: Sendable {
  static let cell = 30.0
  static let rowHeight = 36.0
  static let labelWidth = 92.0
  static let top = 44.0
  static let radius = 11.0

  /// The SVG document of `scenario`, whose rows did what `outcomes` says.
  public static func svg(_ scenario: Scenario, outcomes: [RowOutcome]) -> String {
    let width = labelWidth + cell * Double(scenario.ticks) + 12
    let height = top + rowHeight * Double(scenario.rows.count + 1) + 40
    var body: [String] = []
    body.append(tag("rect", [("width", "100%"), ("height", "100%"), ("fill", "#ffffff")]))
    body.append(text(8, 18, escape(scenario.title), size: 13, weight: "bold", anchor: "start"))
    for tick in 0..<scenario.ticks {
      body.append(text(x(tick), top - 8, "\(tick)", size: 10, fill: "#777777"))
      body.append(line(x(tick), top, x(tick), height - 40, stroke: "#eeeeee"))
    }
    // Calls.
    body.append(text(8, y(0) + 4, "calls", size: 12, anchor: "start"))
    for call in scenario.calls where call.tick < scenario.ticks {
      body.append(marble(x(call.tick), y(0), call.letter, filled: false))
    }
    // Rows.
    for (index, (row, outcome)) in zip(scenario.rows, outcomes).enumerated() {
      let rowY = y(index + 1)
      body.append(text(8, rowY + 4, escape(row.label), size: 12, anchor: "start"))
      if row.overlap == nil {
        for (start, end) in shading(row, scenario: scenario, outcome: outcome) {
          body.append(
            rect(
              x(start) - cell / 2, rowY - rowHeight / 2 + 5, cell * Double(end - start), rowHeight - 10,
              fill: "#dbe9fb"))
        }
      }
      for (index, run) in outcome.runs.enumerated() where run.start < scenario.ticks {
        guard let end = run.end else {
          body.append(marble(x(run.start), rowY, run.value, filled: true))
          continue
        }
        // Async runs alternate between two lanes, so that a run starting where the previous one ends does not
        // hide that end (or its cross).
        let laneY = rowY + (index % 2 == 0 ? -8 : 8)
        let endX = x(min(end, scenario.ticks - 1))
        body.append(rect(x(run.start), laneY - 4, max(endX - x(run.start), 2), 8, fill: "#9cc2f0"))
        if run.cancelled { body.append(cross(endX, laneY)) }
        body.append(marble(x(run.start), laneY, run.value, filled: true, radius: 8))
      }
    }
    let legend =
      scenario.rows.contains { $0.overlap != nil }
      ? ["hollow: a call · filled: a run starts", "bar: until it returns · ×: its task was cancelled"]
      : ["hollow: a call · filled: a run, with its value", "shaded: a throttle window or a quiet period"]
    body.append(text(8, height - 22, legend[0], size: 10, fill: "#555555", anchor: "start"))
    body.append(text(8, height - 8, legend[1], size: 10, fill: "#555555", anchor: "start"))
    return """
      <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(format(width)) \(format(height))" \
      width="\(format(width))" height="\(format(height))" font-family="Menlo, Consolas, monospace" \
      role="img" aria-label="\(escape(scenario.title))">
      <title>\(escape(scenario.title))</title>
      \(body.joined(separator: "\n"))
      </svg>

      """
  }

  /// The stretches of time the row's rule waits through, as [start, end) in ticks.
  static func shading(_ row: Scenario.Row, scenario: Scenario, outcome: RowOutcome) -> [(Int, Int)] {
    let interval = scenario.interval
    let spans: [(Int, Int)]
    switch row.limiter {
    case .throttler(.trailing):
      spans = outcome.runs.map { ($0.start - interval, $0.start) }
    case .throttler:
      spans = outcome.runs.map { ($0.start, $0.start + interval) }
    case .debouncer:
      spans = scenario.calls.map { ($0.tick, $0.tick + interval) }
    }
    // Clipped to the drawing; a debouncer's overlapping quiet periods merged into one (each call restarts it),
    // a throttler's windows kept apart.
    let merges: Bool
    if case .debouncer = row.limiter { merges = true } else { merges = false }
    var merged: [(Int, Int)] = []
    for (start, end) in spans.sorted(by: { $0.0 < $1.0 }) where end > start {
      let clipped = (max(start, 0), min(end, scenario.ticks))
      if merges, let last = merged.last, clipped.0 <= last.1 {
        merged[merged.count - 1].1 = max(last.1, clipped.1)
      } else {
        merged.append(clipped)
      }
    }
    return merged
  }

  static func x(_ tick: Int) -> Double { labelWidth + cell * (Double(tick) + 0.5) }
  static func y(_ row: Int) -> Double { top + rowHeight * (Double(row) + 0.5) }

  static func marble(_ x: Double, _ y: Double, _ label: String, filled: Bool, radius: Double = radius) -> String {
    let width = max(2 * radius, Double(label.count) * 7.5 + 8)
    let shape = tag(
      "rect",
      [
        ("x", format(x - width / 2)), ("y", format(y - radius)), ("width", format(width)),
        ("height", format(2 * radius)), ("rx", format(radius)), ("fill", filled ? "#1f6fd1" : "#ffffff"),
        ("stroke", "#1f6fd1"), ("stroke-width", "1.5"),
      ])
    let size = radius < Self.radius ? 10 : 12
    return shape + "\n" + text(x, y + Double(size) / 3, escape(label), size: size, fill: filled ? "#ffffff" : "#1f6fd1")
  }

  static func cross(_ x: Double, _ y: Double) -> String {
    let d = 5.0
    return line(x - d, y - d, x + d, y + d, stroke: "#c62828", width: 2.5) + "\n"
      + line(x - d, y + d, x + d, y - d, stroke: "#c62828", width: 2.5)
  }

  static func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double, fill: String) -> String {
    tag(
      "rect",
      [
        ("x", format(x)), ("y", format(y)), ("width", format(width)), ("height", format(height)), ("rx", "4"),
        ("fill", fill),
      ])
  }

  static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1)
    -> String
  {
    tag(
      "line",
      [
        ("x1", format(x1)), ("y1", format(y1)), ("x2", format(x2)), ("y2", format(y2)), ("stroke", stroke),
        ("stroke-width", format(width)),
      ])
  }

  static func text(
    _ x: Double, _ y: Double, _ content: String, size: Int, fill: String = "#222222", weight: String = "normal",
    anchor: String = "middle"
  ) -> String {
    tag(
      "text",
      [
        ("x", format(x)), ("y", format(y)), ("font-size", "\(size)"), ("font-weight", weight), ("fill", fill),
        ("text-anchor", anchor),
      ], content: content)
  }

  /// An element with its attributes, in order; self-closing without `content`.
  static func tag(_ name: String, _ attributes: [(String, String)], content: String? = nil) -> String {
    let opening = "<" + name + attributes.map { " \($0.0)=\"\($0.1)\"" }.joined()
    guard let content else { return opening + "/>" }
    return opening + ">" + content + "</" + name + ">"
  }

  static func escape(_ text: String) -> String {
    text.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
  }

  /// A number with at most one decimal, the same on every platform.
  static func format(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(abs(tenths % 10))"
  }
}

extension String {
  /// Every `target` replaced by `replacement` (without Foundation).
  fileprivate func replacingAll(_ target: String, _ replacement: String) -> String {
    split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}
