import Benchmark
import Dispatch
import RateLimit

/// A clock that counts what it is asked to schedule: timers and runs alike. Virtual time, so the count is exact.
final class CountingClock: RateLimitClock, @unchecked Sendable {
  // @unchecked Sendable: `count` is only touched by the thread that drives the benchmark (ManualClock runs work
  // inline on the thread that advances it).
  let base = ManualClock()
  private(set) var count = 0

  var now: Duration { base.now }

  func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    count += 1
    base.schedule(at: deadline, on: queue, work)
  }
}

/// How many timers an object arms during a burst of 1,000 calls spread evenly over 5 intervals: counted as the
/// `schedule` calls a wrapping clock sees, minus the runs (a run is handed to the clock too).
enum TimerBenchmarks {
  static let calls = 1_000
  static let intervals = 5

  static let timersArmed = BenchmarkMetric.custom("timers armed", useScalingFactor: false)
  static let runs = BenchmarkMetric.custom("runs", useScalingFactor: false)

  static func register() {
    // Counts on virtual time are exact: any change fails `thresholds check`.
    let configuration = Benchmark.Configuration(
      metrics: [timersArmed, runs], warmupIterations: 0, maxDuration: .seconds(5), maxIterations: 3,
      thresholds: [timersArmed: .init(absolute: [.p50: 0, .p100: 0]), runs: .init(absolute: [.p50: 0, .p100: 0])])
    let interval = Duration.seconds(1)
    typealias Make = (CountingClock, @escaping @Sendable (Int) -> Void) -> any CallSink
    let queue = Setup.queue
    let limiters: [(String, Make)] = [
      ("Throttler.leading", { Throttler(interval: interval, mode: .leading, queue: queue, clock: $0, action: $1) }),
      ("Throttler.trailing", { Throttler(interval: interval, mode: .trailing, queue: queue, clock: $0, action: $1) }),
      (
        "Throttler.firstPerDuration",
        { Throttler(interval: interval, mode: .firstPerDuration, queue: queue, clock: $0, action: $1) }
      ),
      ("Debouncer.leading", { Debouncer(interval: interval, mode: .leading, queue: queue, clock: $0, action: $1) }),
      ("Debouncer.trailing", { Debouncer(interval: interval, mode: .trailing, queue: queue, clock: $0, action: $1) }),
      (
        "Debouncer.trailingMaxWait",
        { Debouncer(interval: interval, maxWait: interval * 2, queue: queue, clock: $0, action: $1) }
      ),
    ]
    for (name, make) in limiters {
      Benchmark("Timers.RateLimit." + name, configuration: configuration) { benchmark in
        let clock = CountingClock()
        let ran = RunCounter()
        let limiter = make(clock) { _ in ran.add() }
        let step = interval * intervals / calls
        for value in 0..<calls {
          limiter.call(value)
          clock.base.advance(by: step)
        }
        clock.base.run()
        benchmark.measurement(timersArmed, clock.count - ran.count)
        benchmark.measurement(runs, ran.count)
      }
    }
    Benchmark("Timers.Seeds.DispatchWorkItemDebounce", configuration: configuration) { benchmark in
      // The pattern schedules one `asyncAfter` per call by construction; counted, not assumed. Its work items
      // (cancelled, all but the last) fire after the benchmark is done.
      let seed = SeedDebouncer(delay: .seconds(3_600), queue: Setup.queue, action: Setup.action)
      for value in 0..<calls { seed.call(value) }
      benchmark.measurement(timersArmed, seed.timersArmed)
    }
  }
}

/// Counts runs; only touched on the thread that advances the ManualClock.
final class RunCounter: @unchecked Sendable {
  // @unchecked Sendable: see above.
  private(set) var count = 0
  func add() { count += 1 }
}
