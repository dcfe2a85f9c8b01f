import Benchmark
import RateLimit

/// Issue 19, 5: no cost cliffs. A call through `any ActionLimiter<Int>` (the protocol's witness) against the same
/// call on the concrete type; and a call combined into a waiting async run against one combined into a held value.
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
    let held = Throttler<Int>(
      interval: Setup.interval, mode: .trailing, queue: Setup.queue, reducing: { $0 += $1 }, action: Setup.action)
    held.call(0)
    Benchmark("Combine.IntoHeldValue", configuration: Setup.perCall()) { benchmark in
      for value in benchmark.scaledIterations { held.call(value) }
    }
    // A zero interval: every call is a run; the first runs and never returns, so every later one joins the
    // waiting run.
    let (end, _) = AsyncStream<Void>.makeStream()
    let waiting = Throttler<Int>(interval: .zero, overlap: .waitForPrevious, reducing: { $0 += $1 }) { _ in
      for await _ in end {}
    }
    waiting.call(0)
    Benchmark("Combine.IntoWaitingRun", configuration: Setup.perCall()) { benchmark in
      for value in benchmark.scaledIterations { waiting.call(value) }
    }
  }
}
