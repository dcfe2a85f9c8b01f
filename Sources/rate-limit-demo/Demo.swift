import Dispatch
import RateLimit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Feeds the calls of `options` through every mode on the real clock and collects, per mode, when each run
/// started and with which letters (several when `reducing` combined calls).
struct Demo {
  let options: Options
  let clock = DispatchClock()

  /// One line of the output: a name, and the events on it as (tick, text).
  final class Line: @unchecked Sendable {
    // @unchecked Sendable: `events` is only touched on `queue`, a serial queue (`add` hops there; `events` reads
    // with `sync`).
    let name: String
    let queue: DispatchQueue
    private var stored: [(tick: Int, text: String)] = []

    init(name: String) {
      self.name = name
      self.queue = DispatchQueue(label: "rate-limit-demo.\(name)")
    }

    /// Adds an event; callable from any thread.
    func add(_ text: String, at tick: Int) {
      queue.async { self.stored.append((tick, text)) }
    }

    /// Appends an event from code already running on `queue`.
    func addOnQueue(_ text: String, at tick: Int) {
      stored.append((tick, text))
    }

    var events: [(tick: Int, text: String)] { queue.sync { stored } }
  }

  var tick: Duration { .milliseconds(options.tickMilliseconds) }

  /// Calls land on exact multiples of T, where real-time jitter would make every "gap of exactly T" a coin
  /// toss. A tenth of a tick less makes those gaps show SPEC's inclusive boundary, and still rounds to T ticks.
  var slack: Duration { options.interval == 0 ? .zero : tick / 10 }
  var interval: Duration { tick * options.interval - slack }

  /// The synchronous modes, and a trailing throttler that combines the calls of a window with `reducing`.
  func run() -> [Line] {
    let start = clock.now
    func line(_ name: String) -> (Line, @Sendable (String) -> Void) {
      let line = Line(name: name)
      return (line, { [clock, tick] text in line.addOnQueue(text, at: Self.ticks(clock.now - start, tick)) })
    }
    let (leading, leadingRun) = line("Throttler.leading")
    let (trailing, trailingRun) = line("Throttler.trailing")
    let (first, firstRun) = line("Throttler.firstPerDuration")
    let (debounceLeading, debounceLeadingRun) = line("Debouncer.leading")
    let (debounceTrailing, debounceTrailingRun) = line("Debouncer.trailing")
    let (maxWait, maxWaitRun) = line("Debouncer.trailing maxWait \(options.maxWait)")
    let (reducing, reducingRun) = line("Throttler.trailing reducing")
    let limiters: [Throttler<String>] = [
      Throttler(interval: interval, mode: .leading, queue: leading.queue, action: leadingRun),
      Throttler(interval: interval, mode: .trailing, queue: trailing.queue, action: trailingRun),
      Throttler(interval: interval, mode: .firstPerDuration, queue: first.queue, action: firstRun),
      Throttler(
        interval: interval, mode: .trailing, queue: reducing.queue, reducing: { $0 += $1 }, action: reducingRun),
    ]
    let debouncers: [Debouncer<String>] = [
      Debouncer(interval: interval, mode: .leading, queue: debounceLeading.queue, action: debounceLeadingRun),
      Debouncer(interval: interval, mode: .trailing, queue: debounceTrailing.queue, action: debounceTrailingRun),
      Debouncer(
        interval: interval, mode: .trailing, maxWait: max(.zero, tick * options.maxWait - slack),
        queue: maxWait.queue, action: maxWaitRun),
    ]
    let calls = play(from: start, until: options.lastTick) { letter in
      limiters.forEach { $0(letter) }
      debouncers.forEach { $0(letter) }
    }
    return [calls, leading, trailing, first, debounceLeading, debounceTrailing, maxWait, reducing]
  }

  /// An async action that takes `interval + 2` ticks, through a leading throttler with each ``Overlap``: when
  /// each run starts, and when it ends (a capital letter: it ended because its task was cancelled).
  func runAsync() -> (lines: [Line], lastTick: Int) {
    let actionTicks = options.actionTicks
    let lastTick = options.asyncLastTick
    let start = clock.now
    var lines: [Line] = []
    var limiters: [Throttler<String>] = []
    for overlap in Overlap.allCases {
      let starts = Line(name: "\(overlap) starts")
      let ends = Line(name: "\(overlap) ends")
      lines += [starts, ends]
      limiters.append(
        Throttler<String>(interval: interval, overlap: overlap) { [clock, tick] letter in
          starts.add(letter, at: Self.ticks(clock.now - start, tick))
          try? await Task.sleep(for: tick * actionTicks)
          let text = Task.isCancelled ? letter.uppercased() : letter
          ends.add(text, at: Self.ticks(clock.now - start, tick))
        })
    }
    let calls = play(from: start, until: lastTick) { letter in limiters.forEach { $0(letter) } }
    return ([calls] + lines, lastTick)
  }

  /// Makes the calls of `options` in real time, each with its letter, then waits until `lastTick` has passed.
  /// Returns the line of calls.
  private func play(from start: Duration, until lastTick: Int, _ call: (String) -> Void) -> Line {
    let calls = Line(name: "calls")
    for (tickIndex, letter) in zip(options.calls, "abcdefghijklmnopqrstuvwxyz") {
      sleep(until: start + tick * tickIndex)
      call(String(letter))
      calls.add(String(letter), at: tickIndex)
    }
    sleep(until: start + tick * lastTick + tick / 2)
    return calls
  }

  /// The tick a point in time falls in.
  static func ticks(_ elapsed: Duration, _ tick: Duration) -> Int {
    Int((elapsed / tick).rounded())
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
