import Dispatch
import RateLimitStoreKit
import Testing

@testable import RateLimit

/// Every limiter on the real ``DispatchClock``, hammered for a while by several threads that call, flush, cancel
/// and read `isPending`, round after round; each round ends with an `invalidate()` on the action's queue. What
/// must hold on a real clock, where timers are late and threads race:
///
/// - nothing runs after an `invalidate()` made on the action's queue;
/// - no value runs twice, and every value that runs was called;
/// - no more runs than the rate allows: `span / T + 1`, plus one per `flush()` and `cancel()` (each may start a
///   run out of rhythm), where `span` runs from the first call to the last run;
/// - the trailing modes deliver the last call's value, once, last.
///
/// CI runs the short version (`RATELIMIT_SOAK_SECONDS`, default 0.5 s per limiter), also under ThreadSanitizer;
/// set it to 60 or more for a long soak.
@Suite struct SoakTests {
  /// How long each configuration is soaked, in seconds.
  static let seconds = TestEnvironment.integer("RATELIMIT_SOAK_SECONDS").map { Double($0) } ?? 0.5
  static let interval = Duration.milliseconds(2)
  static let callers = 3
  /// How long the threads call in one round before the round is checked and the limiter invalidated.
  static let roundNanoseconds: UInt64 = 80_000_000

  struct Config: Sendable, CustomTestStringConvertible {
    let kind: LimiterKind
    var maxWait: Duration? = nil
    var testDescription: String { kind.rawValue + (maxWait.map { " maxWait \($0)" } ?? "") }
    /// Whether the last call's value must be delivered.
    var keepsTheLastValue: Bool { kind == .throttleTrailing || kind == .firstPerDuration || kind == .debounceTrailing }
  }

  static let configs =
    LimiterKind.allCases.map { Config(kind: $0) } + [
      Config(kind: .debounceTrailing, maxWait: .milliseconds(5)),
      Config(kind: .debounceLeading, maxWait: .milliseconds(5)),
    ]

  @Test(arguments: configs)
  func invariantsHoldOnTheRealClock(_ config: Config) {
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(Self.seconds * 1e9)
    var totals = (rounds: 0, calls: 0, runs: 0)
    repeat {
      let round = SoakRound(config: config)
      round.play()
      #expect(round.problems.isEmpty, "round \(totals.rounds): \(round.problems)")
      totals.rounds += 1
      totals.calls += round.calls
      totals.runs += round.log.runs.count
    } while DispatchTime.now().uptimeNanoseconds < end
    print(
      "SoakTests: \(config.testDescription): \(totals.rounds) rounds, \(totals.calls) calls, \(totals.runs) runs "
        + "in \(Self.seconds) s")
    #expect(totals.runs > totals.rounds, "the soak must make the limiter run")
  }
}

/// One round of the soak: a fresh limiter, threads at it for ``SoakTests/roundNanoseconds``, a last call, an
/// `invalidate()` on the action's queue, more calls, and the checks.
final class SoakRound: @unchecked Sendable {
  // @unchecked Sendable: `calls`, `flushesAndCancels` and `problems` are only written by the thread that runs
  // `play()`, after the worker threads have been joined by `onSeparateThreads`; the workers only touch `log`
  // (locked) and their own counters, which are locked.

  /// The runs, and whether the action ran after the invalidation; locked.
  final class Log: @unchecked Sendable {
    // @unchecked Sendable: every stored `var` is only touched inside `lock.withLock`.
    private let lock = Lock()
    private var storedRuns: [(value: Int, at: UInt64)] = []
    private var invalidated = false
    private var ranAfterInvalidate: [Int] = []

    func ran(_ value: Int) {
      let now = DispatchTime.now().uptimeNanoseconds
      lock.withLock {
        if invalidated { ranAfterInvalidate.append(value) } else { storedRuns.append((value, now)) }
      }
    }
    func markInvalidated() { lock.withLock { invalidated = true } }
    var isInvalidated: Bool { lock.withLock { invalidated } }
    var runs: [(value: Int, at: UInt64)] { lock.withLock { storedRuns } }
    var afterInvalidate: [Int] { lock.withLock { ranAfterInvalidate } }
  }

  let config: SoakTests.Config
  let queue = DispatchQueue(label: "SoakTests.round")
  let log = Log()
  private(set) var calls = 0
  private(set) var problems: [String] = []
  private let flushesAndCancels = Counter()

  final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `lock.withLock`.
    private let lock = Lock()
    private var count = 0
    func add(_ amount: Int = 1) { lock.withLock { count += amount } }
    var value: Int { lock.withLock { count } }
  }

  init(config: SoakTests.Config) {
    self.config = config
  }

  func play() {
    let log = self.log
    let limiter = makeLimiter(
      config.kind, interval: SoakTests.interval, maxWait: config.maxWait, queue: queue, clock: .dispatch
    ) { (value: Int) in log.ran(value) }
    let start = DispatchTime.now().uptimeNanoseconds
    let end = start + SoakTests.roundNanoseconds
    let callCount = Counter()
    let flushesAndCancels = self.flushesAndCancels
    onSeparateThreads(SoakTests.callers + 1) { thread in
      var random = SeededGenerator(seed: UInt64(thread) &+ start)
      if thread == 0 {
        // The controller: flush, cancel, isPending, at random moments.
        while DispatchTime.now().uptimeNanoseconds < end {
          sleepMicroseconds(UInt32.random(in: 500...4_000, using: &random))
          switch Int.random(in: 0..<3, using: &random) {
          case 0: limiter.flush(); flushesAndCancels.add()
          case 1: limiter.cancel(); flushesAndCancels.add()
          default: _ = limiter.isPending
          }
        }
        return
      }
      var index = 0
      while DispatchTime.now().uptimeNanoseconds < end {
        index += 1
        limiter.call(thread << 32 | index)
        // Bursts with pauses, some longer than T, so that quiet periods and windows end while calls go on.
        if index % 16 == 0 { sleepMicroseconds(UInt32.random(in: 0...3_000, using: &random)) }
      }
      callCount.add(index)
    }
    calls = callCount.value + 1
    // The last call, after every other: the trailing modes must deliver it.
    let last = -1
    limiter.call(last)
    if config.keepsTheLastValue {
      let deadline = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
      while !log.runs.contains(where: { $0.value == last }), DispatchTime.now().uptimeNanoseconds < deadline {
        sleepMicroseconds(200)
      }
      queue.sync {}
    }

    checkTheLastValue(last)

    // More of the same, and in the middle an invalidate() on the action's queue, with runs and timers in flight.
    // From then on nothing may run, whatever the threads do (they flush too, once it has happened).
    let invalidateAt = DispatchTime.now().uptimeNanoseconds + 5_000_000
    let stopAt = invalidateAt + 10_000_000
    onSeparateThreads(SoakTests.callers + 1) { thread in
      if thread == 0 {
        while DispatchTime.now().uptimeNanoseconds < invalidateAt { sleepMicroseconds(100) }
        self.queue.sync {
          limiter.invalidate()
          log.markInvalidated()
        }
        return
      }
      var index = 0
      while DispatchTime.now().uptimeNanoseconds < stopAt {
        index += 1
        limiter.call(-(thread << 32 | index) - 1)
        if index % 64 == 0, log.isInvalidated { limiter.flush() }
        if index % 16 == 0 { sleepMicroseconds(200) }
      }
    }
    sleepMicroseconds(10_000)  // five intervals: any timer still armed has fired
    queue.sync {}
    checkTheRest(start: start)
  }

  private func checkTheLastValue(_ last: Int) {
    guard config.keepsTheLastValue else { return }
    let runs = log.runs
    let lastRuns = runs.filter { $0.value == last }.count
    if lastRuns != 1 || runs.last?.value != last {
      problems.append("the last call's value ran \(lastRuns) times; the last run was \(runs.last?.value ?? 0)")
    }
  }

  private func checkTheRest(start: UInt64) {
    let runs = log.runs
    if !log.afterInvalidate.isEmpty { problems.append("ran after invalidate(): \(log.afterInvalidate)") }
    var seen = Set<Int>()
    for run in runs where !seen.insert(run.value).inserted { problems.append("\(run.value) ran twice") }
    for run in runs where abs(run.value) >> 32 > SoakTests.callers {
      problems.append("\(run.value) ran but was never called")
    }
    if let lastRun = runs.map(\.at).max() {
      let span = Double(lastRun - start) / 1e9
      let interval = Double(SoakTests.interval.components.attoseconds) / 1e18
      let allowed = Int(span / interval) + 1 + flushesAndCancels.value
      if runs.count > allowed {
        problems.append("\(runs.count) runs in \(span) s; at most \(allowed) allowed")
      }
    }
  }
}
