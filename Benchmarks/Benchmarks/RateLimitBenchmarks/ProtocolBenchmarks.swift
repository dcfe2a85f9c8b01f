import Benchmark
import RateLimit

/// Issue 19, 5: a call through `any ActionLimiter<Int>` (the protocol's generic witness, unspecialized) against
/// the same call on the concrete type.
enum ProtocolBenchmarks {
  static func register() {
    let concrete = Debouncer<Int>(interval: Setup.interval, queue: Setup.queue, action: Setup.action)
    concrete.call(0)
    Benchmark("Protocol.Concrete.Debouncer.trailing", configuration: Setup.perCall()) { benchmark in
      for value in benchmark.scaledIterations { concrete.call(value) }
    }
    let existential: any ActionLimiter<Int> = Debouncer<Int>(
      interval: Setup.interval, queue: Setup.queue, action: Setup.action)
    existential.call(0)
    Benchmark("Protocol.Existential.Debouncer.trailing", configuration: Setup.perCall()) { benchmark in
      for value in benchmark.scaledIterations { existential.call(value) }
    }
  }
}
