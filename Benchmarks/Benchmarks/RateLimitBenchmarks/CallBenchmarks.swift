import Benchmark
import RateLimit

extension Throttler: CallSink where Value == Int {}
extension Debouncer: CallSink where Value == Int {}

/// Every limiter in the same setup, for the cost of one call in the steady state.
enum CallBenchmarks {
  /// The limiters compared, by benchmark name. RateLimit's come last; their names start with `RateLimit.`.
  static func limiters() -> [(name: String, limiter: any CallSink, isRateLimit: Bool)] {
    let interval = Setup.interval
    let queue = Setup.queue
    let action = Setup.action
    return [
      ("Floor", Floor(interval: interval), false),
      (
        "Seeds.DispatchWorkItemDebounce", SeedDebouncer(delay: Setup.dispatchInterval, queue: queue, action: action),
        false
      ),
      ("HWThrottleStyle.leading", LastRunThrottle(interval: interval, queue: queue, action: action), false),
      ("OpenCombine.debounce", CombineLimiter(.debounce, interval: interval, queue: queue, action: action), false),
      (
        "OpenCombine.throttleLatest", CombineLimiter(.throttleLatest, interval: interval, queue: queue, action: action),
        false
      ),
      ("AsyncAlgorithms.debounce", AsyncDebounce(interval: interval, action: action), false),
      (
        "RateLimit.Throttler.leading", Throttler(interval: interval, mode: .leading, queue: queue, action: action), true
      ),
      (
        "RateLimit.Throttler.trailing", Throttler(interval: interval, mode: .trailing, queue: queue, action: action),
        true
      ),
      (
        "RateLimit.Throttler.firstPerDuration",
        Throttler(interval: interval, mode: .firstPerDuration, queue: queue, action: action), true
      ),
      (
        "RateLimit.Debouncer.leading", Debouncer(interval: interval, mode: .leading, queue: queue, action: action), true
      ),
      (
        "RateLimit.Debouncer.trailing", Debouncer(interval: interval, mode: .trailing, queue: queue, action: action),
        true
      ),
      (
        "RateLimit.Debouncer.trailingMaxWait",
        Debouncer(interval: interval, mode: .trailing, maxWait: interval * 2, queue: queue, action: action), true
      ),
      // 2.0: an async action (the call path is the same; only runs differ), and a reducing one.
      (
        "RateLimit.Async.Debouncer.trailing",
        Debouncer<Int>(interval: interval, overlap: .cancelPrevious) { blackHole($0) }, true
      ),
      (
        "RateLimit.Async.Throttler.leading",
        Throttler<Int>(interval: interval, overlap: .dropNew) { blackHole($0) }, true
      ),
      (
        "RateLimit.Reducing.Debouncer.trailing",
        Debouncer<Int>(interval: interval, queue: queue, reducing: { $0 += $1 }, action: action), true
      ),
      (
        "RateLimit.Reducing.Throttler.trailing",
        Throttler<Int>(interval: interval, mode: .trailing, queue: queue, reducing: { $0 += $1 }, action: action),
        true
      ),
    ]
  }

  static func register() {
    for (name, limiter, isRateLimit) in limiters() {
      // The first call, outside the measured loop: timers are armed, windows open, and what is measured is the
      // steady state, where most calls only update state.
      limiter.call(0)
      Benchmark(
        "Call." + name, configuration: Setup.perCall(thresholds: isRateLimit ? Setup.rateLimitThresholds : nil)
      ) { benchmark in
        for value in benchmark.scaledIterations { limiter.call(value) }
      }
    }
  }
}
