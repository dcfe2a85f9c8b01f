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
  /// RateLimit's scenarios (`thresholds` given) record only what their thresholds check; the others also record
  /// CPU time, which for `AsyncAlgorithms.debounce` includes the consuming task's work on another thread.
  static func perCall(thresholds: [BenchmarkMetric: BenchmarkThresholds]? = nil) -> Benchmark.Configuration {
    .init(
      metrics: thresholds == nil ? [.wallClock, .cpuTotal, .mallocCountTotal] : [.wallClock, .mallocCountTotal],
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

  /// How much a RateLimit scenario may move before `thresholds check` fails. Static thresholds compare p90.
  /// Time: 60%, because on the 2-core machine that recorded them whole runs land either near 40 ns a call or
  /// near 60 ns (process layout, we believe: it changes from one launch to the next, not within one), and what
  /// this must catch is the kind of regression that costs multiples (unspecialized generics cost 20 times).
  /// Allocations: exact.
  static var rateLimitThresholds: [BenchmarkMetric: BenchmarkThresholds] {
    [
      .wallClock: .init(relative: [.p90: 60]),
      .mallocCountTotal: .init(absolute: [.p90: 0]),
    ]
  }
}

/// The same calls on every limiter: what a benchmark loop needs.
protocol CallSink: Sendable {
  func call(_ value: Int)
}
