import Dispatch
import RateLimit

/// What one row of a scenario did: each run's start (tick and value) and, for an async action, its end.
public struct RowOutcome: Sendable, Equatable {
  /// One run of the action.
  public struct Run: Sendable, Equatable {
    /// The tick it started at.
    public var start: Int
    /// What it delivered.
    public var value: String
    /// Async only: when the action returned, and whether its task had been cancelled by then.
    public var end: Int? = nil
    /// Async only: whether its task had been cancelled by the time it returned.
    public var cancelled = false
  }

  /// Every run, in the order they started.
  public var runs: [Run] = []
}

/// Plays scenarios through the real library on a ``ManualClock``, one tick at a time.
public enum Player: Sendable {
  /// Every row of `scenario`, played.
  public static func play(_ scenario: Scenario) async -> [RowOutcome] {
    var outcomes: [RowOutcome] = []
    for row in scenario.rows {
      outcomes.append(
        row.overlap == nil ? playSynchronous(row, of: scenario) : await playAsync(row, of: scenario))
    }
    return outcomes
  }

  /// A synchronous action: the clock runs it inline during `advance`, at its deadline.
  static func playSynchronous(_ row: Scenario.Row, of scenario: Scenario) -> RowOutcome {
    let clock = ManualClock()
    let log = Log()
    let tick = Duration.seconds(1)
    let interval = tick * scenario.interval
    let reducing = Self.reducer(row)
    let action: @Sendable (String) -> Void = { value in
      log.append(RowOutcome.Run(start: Int(clock.now.components.seconds), value: value))
    }
    let call: (String) -> Void
    switch row.limiter {
    case .throttler(let mode):
      let limiter = Throttler<String>(
        interval: interval, mode: mode, queue: .main, clock: clock, reducing: reducing, action: action)
      call = { limiter($0) }
    case .debouncer(let mode):
      let limiter = Debouncer<String>(
        interval: interval, mode: mode, maxWait: row.maxWait.map { tick * $0 }, queue: .main, clock: clock,
        reducing: reducing, action: action)
      call = { limiter($0) }
    }
    for now in 0..<scenario.ticks {
      clock.advance(to: tick * now)
      for (_, letter) in scenario.calls.filter({ $0.tick == now }) { call(letter) }
    }
    clock.advance(to: tick * (scenario.ticks - 1))
    return RowOutcome(runs: log.runs)
  }

  /// An async action that takes `row.actionTicks` ticks, or returns as soon as its task is cancelled (as a
  /// cancellation-aware request does). After every step the player waits until the library is steady: a run
  /// in progress has started and waits for its time, or nothing runs at all.
  static func playAsync(_ row: Scenario.Row, of scenario: Scenario) async -> RowOutcome {
    let clock = ManualClock()
    let tick = Duration.seconds(1)
    let gates = Gates()
    let interval = tick * scenario.interval
    let reducing = Self.reducer(row)
    let overlap = row.overlap!
    let limiter: any ActionLimiter<String> =
      switch row.limiter {
      case .throttler(let mode):
        Throttler<String>(interval: interval, mode: mode, overlap: overlap, clock: clock, reducing: reducing) {
          await gates.run($0)
        }
      case .debouncer(let mode):
        Debouncer<String>(
          interval: interval, mode: mode, maxWait: row.maxWait.map { tick * $0 }, overlap: overlap, clock: clock,
          reducing: reducing
        ) { await gates.run($0) }
      }
    for now in 0..<scenario.ticks {
      gates.now = now
      gates.release(startedBy: now - row.actionTicks)
      await settle(limiter, gates)
      clock.advance(to: tick * now)
      await settle(limiter, gates)
      for (_, letter) in scenario.calls.filter({ $0.tick == now }) {
        limiter(letter)
        await settle(limiter, gates)
      }
    }
    gates.release(startedBy: .max)
    await limiter.waitUntilIdle()
    return RowOutcome(runs: gates.runs)
  }

  /// `{ $0 += $1 }` on the letters, if the row combines.
  static func reducer(_ row: Scenario.Row) -> (@Sendable (inout String, String) -> Void)? {
    guard row.reducing else { return nil }
    return { @Sendable (held: inout String, new: String) in held += new }
  }

  /// Waits until the run in progress (if any) has started and waits at its gate, or nothing runs.
  static func settle(_ limiter: any ActionLimiter<String>, _ gates: Gates) async {
    while true {
      let (version, isSteady) = gates.state
      if isSteady || !limiter.isRunning { return }
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await gates.change(after: version) }
        group.addTask { await limiter.waitUntilIdle() }
        await group.next()
        group.cancelAll()
      }
    }
  }
}
