import Benchmark
import RateLimit

/// `reducing: { $0 += $1 }` on a `Debouncer<[Int]>`: a burst of N calls, each passing a one-element array, per
/// measured iteration, then `cancel()` drops the combined array. If combining copied the held array, a call
/// would cost O(N) and the per-call time of the long burst would be far above the short one's; in place, both
/// cost the same per call, and the allocations are the caller's one-element arrays plus the held array's
/// geometric growth (about log2 N).
enum ReducingBenchmarks {
  static func register() {
    for (name, calls) in [("Burst10k", 10_000), ("Burst1M", 1_000_000)] {
      let debouncer = Debouncer<[Int]>(
        interval: Setup.interval, queue: Setup.queue, reducing: { $0 += $1 }, action: { blackHole($0) })
      let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(3), maxIterations: calls > 100_000 ? 20 : 300)
      Benchmark("Reducing.Array.\(name)", configuration: configuration) { benchmark in
        for value in 0..<calls { debouncer.call([value]) }
        debouncer.cancel()
      }
    }
  }
}
