import Benchmark
import Dispatch
import RateLimit

/// What an async run costs, against what a user would write by hand.
///
/// - `AsyncRun.*`: one run per measured iteration, from the call to the action having returned: a zero-interval
///   async throttler (`call`, then `await waitUntilIdle()`) against a plain `Task { }` awaited. Allocations per
///   run are the point.
/// - `Lateness.Async.*`: on the real `DispatchClock`, how late an async run's action starts after its deadline
///   (a trailing debouncer, T = 20 ms, single calls), against a plain `Task { }` started from
///   `DispatchQueue.asyncAfter` 20 ms later. Both actions are nonisolated.
enum AsyncBenchmarks {
  static func register() {
    let runConfiguration = Benchmark.Configuration(
      metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(2), maxIterations: 20_000)
    let throttler = Throttler<Int>(interval: .zero, overlap: .waitForPrevious) { blackHole($0) }
    Benchmark("AsyncRun.RateLimit.Throttler", configuration: runConfiguration) { benchmark in
      for value in benchmark.scaledIterations {
        throttler.call(value)
        await throttler.waitUntilIdle()
      }
    }
    Benchmark("AsyncRun.Task", configuration: runConfiguration) { benchmark in
      for value in benchmark.scaledIterations {
        await Task { blackHole(value) }.value
      }
    }

    let latenessConfiguration = Benchmark.Configuration(
      metrics: [LatenessBenchmarks.lateness, LatenessBenchmarks.earlyRuns], warmupIterations: 3,
      maxDuration: .seconds(10), maxIterations: 300)
    let run = RunStart()
    let debouncer = Debouncer<Int>(interval: LatenessBenchmarks.interval, overlap: .waitForPrevious) { _ in
      run.nanoseconds = DispatchTime.now().uptimeNanoseconds
      run.ran.signal()
    }
    Benchmark("Lateness.Async.RateLimit.Debouncer.trailing", configuration: latenessConfiguration) { benchmark in
      let deadline = LatenessBenchmarks.burst(of: 1) { debouncer.call($0) }
      run.ran.wait()
      LatenessBenchmarks.record(benchmark, start: run.nanoseconds, deadline: deadline)
    }
    let handRun = RunStart()
    let queue = DispatchQueue(label: "AsyncBenchmarks.lateness")
    Benchmark("Lateness.Async.TaskFromAsyncAfter", configuration: latenessConfiguration) { benchmark in
      let deadline = LatenessBenchmarks.burst(of: 1) { _ in
        queue.asyncAfter(deadline: .now() + .milliseconds(20)) {
          Task {
            handRun.nanoseconds = DispatchTime.now().uptimeNanoseconds
            handRun.ran.signal()
          }
        }
      }
      handRun.ran.wait()
      LatenessBenchmarks.record(benchmark, start: handRun.nanoseconds, deadline: deadline)
    }
  }
}
