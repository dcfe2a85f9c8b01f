/// The demo's command line: what to feed through the limiters, and how fast.
struct Options: Equatable {
  /// T, in ticks.
  var interval = 3
  /// `maxWait` of the extra `Debouncer.trailing` line, in ticks.
  var maxWait = 5
  /// Length of one tick, in milliseconds.
  var tickMilliseconds = 50
  /// The ticks at which calls arrive: a user typing, pausing, then tapping a button repeatedly.
  var calls = [0, 1, 2, 3, 4, 5, 11, 12, 14, 15]
  /// With `--svg`: write the documentation's marble diagrams there instead of running the demo.
  var svgDirectory: String? = nil

  /// The longest the demo may run; a bigger request is refused rather than left to hang.
  static let maximumSeconds = 10

  static let usage = """
    USAGE: rate-limit-demo [--interval <ticks>] [--max-wait <ticks>] [--tick <ms>] [--calls <ticks>]
           rate-limit-demo --svg <directory>

    Feeds one burst of calls through every RateLimit mode on the real DispatchClock and prints, per mode,
    a timeline of calls and runs. Each call carries a letter (a, b, c, ...); a run shows the letter it ran with.
    Then the same calls through an async action that takes longer than the interval, once per Overlap policy.

    OPTIONS:
      --interval <ticks>   The interval T, in ticks (0...20, default 3).
      --max-wait <ticks>   maxWait of the extra Debouncer.trailing line, in ticks (0...40, default 5).
      --tick <ms>          The length of one tick in milliseconds (10...1000, default 50).
      --calls <ticks>      Comma-separated ticks at which calls arrive, ascending, at most 26, each 0...60
                           (default 0,1,2,3,4,5,11,12,14,15: typing, a pause, then repeated taps).
      --svg <directory>    Instead, write the documentation's marble diagrams there as SVG files, played on a
                           ManualClock (the same timelines the tests check).
      -h, --help           Show this help.
    """

  /// What parsing the arguments asks for.
  enum Parsed: Equatable {
    case run(Options)
    case help
  }

  /// A one-line reason the arguments were refused.
  struct Failure: Error, Equatable {
    let message: String
  }

  /// Parses `arguments` (without the program name).
  static func parse(_ arguments: [String]) throws(Failure) -> Parsed {
    var options = Options()
    var remaining = arguments[...]
    while let flag = remaining.popFirst() {
      if flag == "-h" || flag == "--help" { return .help }
      guard ["--interval", "--max-wait", "--tick", "--calls", "--svg"].contains(flag) else {
        throw Failure(message: "unknown argument '\(flag)' (see --help)")
      }
      guard let value = remaining.popFirst() else { throw Failure(message: "\(flag) needs a value") }
      switch flag {
      case "--interval": options.interval = try integer(value, for: flag, in: 0...20)
      case "--max-wait": options.maxWait = try integer(value, for: flag, in: 0...40)
      case "--tick": options.tickMilliseconds = try integer(value, for: flag, in: 10...1000)
      case "--svg": options.svgDirectory = value
      default: options.calls = try ticks(value)
      }
    }
    let seconds = (options.lastTick + options.asyncLastTick) * options.tickMilliseconds / 1000
    guard seconds <= maximumSeconds else {
      throw Failure(message: "that would run for \(seconds) s; keep ticks x tick length under \(maximumSeconds) s")
    }
    return .run(options)
  }

  /// The last tick shown: after the last call, room for the slowest mode to run.
  var lastTick: Int {
    (calls.last ?? 0) + max(interval, maxWait) + interval + 1
  }

  /// How long an async action takes in the async section, in ticks: longer than the interval, so runs overlap.
  var actionTicks: Int { interval + 2 }

  /// The last tick of the async section: after the last call, room for a waiting run to start and end.
  var asyncLastTick: Int {
    (calls.last ?? 0) + 2 * actionTicks + 1
  }

  private static func integer(_ text: String, for flag: String, in range: ClosedRange<Int>) throws(Failure) -> Int {
    guard let value = Int(text), range.contains(value) else {
      throw Failure(message: "\(flag) takes a whole number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
    }
    return value
  }

  private static func ticks(_ text: String) throws(Failure) -> [Int] {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    var ticks: [Int] = []
    for part in parts {
      ticks.append(try integer(String(part), for: "--calls", in: 0...60))
    }
    guard !ticks.isEmpty, ticks.count <= 26 else { throw Failure(message: "--calls takes 1 to 26 ticks") }
    guard zip(ticks, ticks.dropFirst()).allSatisfy({ $0 <= $1 }) else {
      throw Failure(message: "--calls must be in ascending order, not '\(text)'")
    }
    return ticks
  }
}
