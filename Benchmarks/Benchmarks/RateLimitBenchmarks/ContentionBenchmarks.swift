import Benchmark
import Dispatch
import RateLimit

/// Two threads calling one object at once: what the lock costs when it is contended.
enum ContentionBenchmarks {
  static func register() {
    let interval = Setup.interval
    let queue = Setup.queue
    let action = Setup.action
    let limiters: [(String, any CallSink, Bool)] = [
      ("Floor", Floor(interval: interval), false),
      (
        "RateLimit.Throttler.leading", Throttler(interval: interval, mode: .leading, queue: queue, action: action), true
      ),
      ("RateLimit.Debouncer.trailing", Debouncer(interval: interval, queue: queue, action: action), true),
    ]
    for (name, limiter, isRateLimit) in limiters {
      limiter.call(0)
      Benchmark(
        "Contention.TwoThreads." + name,
        configuration: Setup.contended(thresholds: isRateLimit ? Setup.rateLimitThresholds : nil)
      ) { benchmark in
        let callsPerThread = benchmark.scaledIterations.count / 2
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
          for index in 0..<callsPerThread { limiter.call(thread * callsPerThread + index) }
        }
      }
    }
  }
}
