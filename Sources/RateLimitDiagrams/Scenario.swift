public import RateLimit

/// One diagram: a limiter, its settings, the calls it gets, and how long to show. The tests play every scenario
/// and check its runs against the timelines the docs print; the demo draws the same scenarios as SVG.
public struct Scenario: Sendable, Identifiable {
  /// The limiter a row shows.
  public enum Limiter: Sendable, Hashable {
    case throttler(ThrottleMode)
    case debouncer(DebounceMode)
  }

  /// One row of the diagram.
  public struct Row: Sendable {
    /// Its label: short, so that the diagram fits a phone.
    public var label: String
    /// The limiter and its mode.
    public var limiter: Limiter
    /// `maxWait`, in ticks (debouncers).
    public var maxWait: Int? = nil
    /// Whether calls combine with `reducing: { $0 += $1 }`.
    public var reducing = false
    /// With an async action: its overlap policy.
    public var overlap: Overlap? = nil
    /// With an async action: how many ticks each run takes.
    public var actionTicks = 0

    /// A row; see the properties.
    public init(
      _ label: String, _ limiter: Limiter, maxWait: Int? = nil, reducing: Bool = false, overlap: Overlap? = nil,
      actionTicks: Int = 0
    ) {
      self.label = label
      self.limiter = limiter
      self.maxWait = maxWait
      self.reducing = reducing
      self.overlap = overlap
      self.actionTicks = actionTicks
    }
  }

  /// The file name of its picture, without extension.
  public var id: String
  /// What the diagram shows, for its caption and alternative text.
  public var title: String
  /// T, in ticks.
  public var interval: Int
  /// The calls: at which tick, with which letter.
  public var calls: [(tick: Int, letter: String)]
  /// The limiters shown, one per row.
  public var rows: [Row]
  /// How many ticks to show (0 up to `ticks - 1`).
  public var ticks: Int

  /// A scenario; `calls` is one token per tick, a letter a call and `.` none: `"a b . c"`.
  public init(id: String, title: String, interval: Int, calls: String, rows: [Row], ticks: Int) {
    self.id = id
    self.title = title
    self.interval = interval
    self.calls = Self.parse(calls)
    self.rows = rows
    self.ticks = ticks
  }

  /// `"a b c . . d"`: one token per tick, a letter a call.
  static func parse(_ line: String) -> [(tick: Int, letter: String)] {
    line.split(separator: " ").enumerated().compactMap { tick, token in
      token == "." ? nil : (tick, String(token))
    }
  }
}

extension Scenario {
  /// Every diagram the docs show.
  public static let all: [Scenario] = [modes, throttlers, debouncers, maxWait, reducing, overlap]

  /// One burst that tells all five modes apart.
  public static let modes = Scenario(
    id: "modes", title: "One burst through the five modes (T = 3 ticks)", interval: 3,
    calls: "a b c d e f . . g",
    rows: [
      Row("T.leading", .throttler(.leading)),
      Row("T.trailing", .throttler(.trailing)),
      Row("T.firstPer…", .throttler(.firstPerDuration)),
      Row("D.leading", .debouncer(.leading)),
      Row("D.trailing", .debouncer(.trailing)),
    ], ticks: 12)

  /// The three throttler modes.
  public static let throttlers = Scenario(
    id: "throttler-modes", title: "Throttler modes (T = 3 ticks)", interval: 3, calls: "a b c d e f . . g",
    rows: [
      Row("leading", .throttler(.leading)),
      Row("trailing", .throttler(.trailing)),
      Row("firstPer…", .throttler(.firstPerDuration)),
    ], ticks: 12)

  /// The two debouncer modes.
  public static let debouncers = Scenario(
    id: "debouncer-modes", title: "Debouncer modes (T = 3 ticks)", interval: 3, calls: "a b c d e f . . g",
    rows: [
      Row("leading", .debouncer(.leading)),
      Row("trailing", .debouncer(.trailing)),
    ], ticks: 12)

  /// `maxWait` bounding a burst that never pauses.
  public static let maxWait = Scenario(
    id: "max-wait", title: "maxWait bounds a burst (T = 2, maxWait = 4)", interval: 2,
    calls: "a b c d e f g h",
    rows: [
      Row("trailing", .debouncer(.trailing)),
      Row("maxWait 4", .debouncer(.trailing), maxWait: 4),
      Row("leading", .debouncer(.leading)),
      Row("lead., mW 4", .debouncer(.leading), maxWait: 4),
    ], ticks: 11)

  /// `reducing: { $0 += $1 }`: every call of a burst, combined.
  public static let reducing = Scenario(
    id: "reducing", title: "reducing { $0 += $1 }: every call, combined (T = 3)", interval: 3,
    calls: "a b c d e f . . g",
    rows: [
      Row("T.trailing", .throttler(.trailing), reducing: true),
      Row("T.firstPer…", .throttler(.firstPerDuration), reducing: true),
      Row("D.trailing", .debouncer(.trailing), reducing: true),
    ], ticks: 12)

  /// The three overlap policies: an async action that takes 5 ticks, runs due every 2.
  public static let overlap = Scenario(
    id: "overlap", title: "Overlap: an async action taking 5 ticks, a leading throttler (T = 2)", interval: 2,
    calls: "a . b . c . . . . . d",
    rows: [
      Row("waitFor…", .throttler(.leading), overlap: .waitForPrevious, actionTicks: 5),
      Row("cancel…", .throttler(.leading), overlap: .cancelPrevious, actionTicks: 5),
      Row("dropNew", .throttler(.leading), overlap: .dropNew, actionTicks: 5),
    ], ticks: 16)
}
