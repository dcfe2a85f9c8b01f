import Benchmark
import Dispatch

/// One setup for every scenario, so that the numbers compare: the same interval (long enough that nothing fires
/// while a benchmark measures), one private serial queue, the same trivial action, `Int` values.
enum Setup {
  static let interval = Duration.seconds(10)
  static let dispatchInterval = DispatchTimeInterval.seconds(10)
  static let queue = DispatchQueue(label: "RateLimitBenchmarks")
  static let action: @Sendable (Int) -> Void = { blackHole($0) }

  /// For the cost of one call: many calls per measured iteration (`scalingFactor`), so that the harness's own
  /// overhead of some 60 ns an iteration does not swamp a call of tens of nanoseconds.
  static func perCall(thresholds: [BenchmarkMetric: BenchmarkThresholds]? = nil) -> Benchmark.Configuration {
    .init(
      metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
      scalingFactor: .kilo,
      maxDuration: .seconds(1),
      maxIterations: 1_000_000,
      thresholds: thresholds
    )
  }

  /// Two threads at once: each measured iteration is a million calls, half from each thread.
  static func contended(thresholds: [BenchmarkMetric: BenchmarkThresholds]? = nil) -> Benchmark.Configuration {
    .init(
      metrics: [.wallClock, .mallocCountTotal],
      scalingFactor: .mega,
      maxDuration: .seconds(2),
      maxIterations: 50,
      thresholds: thresholds
    )
  }

  /// How much a RateLimit scenario may move before `thresholds check` fails: time is noisy on a shared machine,
  /// allocations are exact.
  static var rateLimitThresholds: [BenchmarkMetric: BenchmarkThresholds] {
    [
      .wallClock: .init(relative: [.p50: 25, .p90: 35]),
      .mallocCountTotal: .init(absolute: [.p50: 0, .p90: 0, .p100: 0]),
    ]
  }
}

/// The same calls on every limiter: what a benchmark loop needs.
protocol CallSink: Sendable {
  func call(_ value: Int)
}
