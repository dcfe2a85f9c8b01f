import Dispatch
import RateLimit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Feeds the calls of `options` through every mode on the real clock and collects, per mode, when each run
/// started and with which letter.
struct Demo {
  let options: Options
  let clock = DispatchClock()

  /// One line of the output: a limiter, and the runs it made as (tick, letter).
  final class Line: @unchecked Sendable {
    // @unchecked Sendable: `runs` is written only on `queue` (a serial queue) and read after `queue.sync {}`.
    let name: String
    let queue: DispatchQueue
    var runs: [(tick: Int, letter: Character)] = []
    var call: (Character) -> Void = { _ in }

    init(name: String) {
      self.name = name
      self.queue = DispatchQueue(label: "rate-limit-demo.\(name)")
    }
  }

  /// Runs the scenario in real time and returns the lines, calls first.
  func run() -> [Line] {
    let tick = Duration.milliseconds(options.tickMilliseconds)
    // Calls land on exact multiples of T, where real-time jitter would make every "gap of exactly T" a coin
    // toss. A tenth of a tick less makes those gaps show SPEC's inclusive boundary, and still rounds to T ticks.
    let slack = options.interval == 0 ? .zero : tick / 10
    let interval = tick * options.interval - slack
    let start = clock.now
    let lines = [
      "Throttler.leading", "Throttler.trailing", "Throttler.firstPerDuration", "Debouncer.leading",
      "Debouncer.trailing", "Debouncer.trailing maxWait \(options.maxWait)",
    ].map(Line.init)
    func record(_ line: Line) -> @Sendable (Character) -> Void {
      { [clock] letter in
        line.runs.append((Int(((clock.now - start) / tick).rounded()), letter))
      }
    }
    let limiters: [any Sendable] = [
      Throttler<Character>(interval: interval, mode: .leading, queue: lines[0].queue, action: record(lines[0])),
      Throttler<Character>(interval: interval, mode: .trailing, queue: lines[1].queue, action: record(lines[1])),
      Throttler<Character>(
        interval: interval, mode: .firstPerDuration, queue: lines[2].queue, action: record(lines[2])),
      Debouncer<Character>(interval: interval, mode: .leading, queue: lines[3].queue, action: record(lines[3])),
      Debouncer<Character>(interval: interval, mode: .trailing, queue: lines[4].queue, action: record(lines[4])),
      Debouncer<Character>(
        interval: interval, mode: .trailing, maxWait: max(.zero, tick * options.maxWait - slack), queue: lines[5].queue,
        action: record(lines[5])),
    ]
    let calls = zip(options.calls, "abcdefghijklmnopqrstuvwxyz").map { (tick: $0, letter: $1) }
    for call in calls {
      sleep(until: start + tick * call.tick)
      for limiter in limiters {
        if let throttler = limiter as? Throttler<Character> { throttler(call.letter) }
        if let debouncer = limiter as? Debouncer<Character> { debouncer(call.letter) }
      }
    }
    sleep(until: start + tick * options.lastTick + tick / 2)
    for line in lines { line.queue.sync {} }
    let callLine = Line(name: "calls")
    callLine.runs = calls
    return [callLine] + lines
  }

  /// Blocks until the clock reaches `instant`.
  private func sleep(until instant: Duration) {
    let remaining = instant - clock.now
    guard remaining > .zero else { return }
    let (seconds, attoseconds) = remaining.components
    usleep(UInt32(seconds) * 1_000_000 + UInt32(attoseconds / 1_000_000_000_000))
  }
}

extension Duration {
  /// `self / other` as a fraction, for bucketing run times into ticks.
  fileprivate static func / (lhs: Duration, rhs: Duration) -> Double {
    let lhsNanoseconds = Double(lhs.components.seconds) * 1e9 + Double(lhs.components.attoseconds) / 1e9
    let rhsNanoseconds = Double(rhs.components.seconds) * 1e9 + Double(rhs.components.attoseconds) / 1e9
    return lhsNanoseconds / rhsNanoseconds
  }
}
