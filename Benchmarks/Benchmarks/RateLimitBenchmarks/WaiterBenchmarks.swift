import Benchmark
import Dispatch
import RateLimit

/// Issue 19, 4: cancelling one of many tasks suspended in `waitUntilIdle()`. 2.0 kept waiters in an array and found
/// the cancelled one by a scan: 35 µs each with 100,000 waiting, holding `call()` up meanwhile. 3.0 keys them by id.
enum WaiterBenchmarks {
  static func register() {
    Benchmark(
      "Waiters.CancelOneOf100k",
      configuration: .init(metrics: [.wallClock], scalingFactor: .kilo, maxDuration: .seconds(5), maxIterations: 50)
    ) { benchmark in
      // A run that does not return until the end, so that waiters stay suspended.
      let (end, finish) = AsyncStream<Void>.makeStream()
      let limiter = Throttler<Int>(interval: .zero, overlap: .waitForPrevious) { _ in
        for await _ in end {}
      }
      limiter(0)
      var waiters: [Task<Void, Never>] = []
      waiters.reserveCapacity(100_000)
      for _ in 0..<100_000 { waiters.append(Task { await limiter.waitUntilIdle() }) }
      // Let them reach the limiter before measuring.
      try? await Task.sleep(for: .milliseconds(500))
      benchmark.startMeasurement()
      for index in benchmark.scaledIterations { waiters[index % 100_000].cancel() }
      benchmark.stopMeasurement()
      finish.finish()
      for waiter in waiters { waiter.cancel() }
      await limiter.waitUntilIdle()
    }
  }
}
