import Benchmark
import CHeapStatistics
import RateLimit

/// Heap bytes per instance, idle and holding a value (after one call, with its timer armed), allocator overhead
/// included: 10,000 instances, the heap in use before and after, divided.
enum MemoryBenchmarks {
  static let instances = 10_000
  static let idle = BenchmarkMetric.custom("bytes idle", useScalingFactor: false)
  static let holding = BenchmarkMetric.custom("bytes holding a value", useScalingFactor: false)

  static func register() {
    let configuration = Benchmark.Configuration(
      metrics: [idle, holding], warmupIterations: 0, maxDuration: .seconds(5), maxIterations: 3)
    let interval = Setup.interval
    let queue = Setup.queue
    let action = Setup.action
    let makers: [(String, () -> any CallSink)] = [
      ("RateLimit Throttler.trailing", { Throttler(interval: interval, mode: .trailing, queue: queue, action: action) }),
      ("RateLimit Debouncer.trailing", { Debouncer(interval: interval, queue: queue, action: action) }),
      (
        "RateLimit Debouncer.trailing maxWait",
        { Debouncer(interval: interval, maxWait: interval * 2, queue: queue, action: action) }
      ),
      ("Seeds: DispatchWorkItem debounce", { SeedDebouncer(delay: Setup.dispatchInterval, queue: queue, action: action) }),
    ]
    for (name, make) in makers {
      Benchmark("Memory: " + name, configuration: configuration) { benchmark in
        var all: [any CallSink] = []
        all.reserveCapacity(instances)
        let before = heap_bytes_in_use()
        for _ in 0..<instances { all.append(make()) }
        let idleBytes = heap_bytes_in_use()
        for limiter in all { limiter.call(1) }
        let holdingBytes = heap_bytes_in_use()
        benchmark.measurement(idle, (idleBytes - before) / instances)
        benchmark.measurement(holding, (holdingBytes - before) / instances)
        blackHole(all)
      }
    }
  }
}
