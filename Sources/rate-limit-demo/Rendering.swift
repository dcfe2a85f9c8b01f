/// Draws lines of (tick, text) events as aligned ASCII timelines, one column per tick.
enum Rendering {
  static func render(_ lines: [(name: String, events: [(tick: Int, text: String)])], ticks: Int) -> String {
    // A column is as wide as the most events any line has at that tick.
    var widths = Array(repeating: 1, count: ticks + 1)
    for line in lines {
      for tick in 0...ticks {
        widths[tick] = max(widths[tick], line.events.filter { $0.tick == tick }.map(\.text.count).reduce(0, +))
      }
    }
    let nameWidth = (lines.map(\.name.count).max() ?? 0) + 2
    func pad(_ text: String, _ width: Int) -> String {
      text + String(repeating: " ", count: max(0, width - text.count))
    }
    var output = pad("tick", nameWidth)
    output += (0...ticks).map { pad(String($0 % 10), widths[$0]) }.joined(separator: " ")
    for line in lines {
      let cells = (0...ticks).map { tick in
        let letters = line.events.filter { $0.tick == tick }.map(\.text).joined()
        return pad(letters.isEmpty ? "." : letters, widths[tick])
      }
      output += "\n" + pad(line.name, nameWidth) + cells.joined(separator: " ")
    }
    return output
  }
}
