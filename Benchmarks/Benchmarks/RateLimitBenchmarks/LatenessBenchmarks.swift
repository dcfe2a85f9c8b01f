import Benchmark
import Dispatch
import RateLimit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// ``DispatchClock`` that remembers its latest reading, so that a run's deadline is known exactly.
final class ReadingClock: RateLimitClock, @unchecked Sendable {
  // @unchecked Sendable: `latest` is only touched between `pthread_mutex_lock` and `_unlock`.
  private let base = DispatchClock()
  private let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    return mutex
  }()
  private var latest = Duration.zero

  var now: Duration {
    let now = base.now
    pthread_mutex_lock(mutex)
    latest = now
    pthread_mutex_unlock(mutex)
    return now
  }

  var latestReading: Duration {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return latest
  }

  func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    base.schedule(at: deadline, on: queue, work)
  }
}

/// When a run started, in uptime nanoseconds; written on the action's queue, read after a semaphore.
final class RunStart: @unchecked Sendable {
  // @unchecked Sendable: written by the action before it signals `ran`, read by the benchmark after waiting on
  // it; the semaphore orders the two.
  var nanoseconds: UInt64 = 0
  let ran = DispatchSemaphore(value: 0)
}

/// Timer accuracy on the real clock: a trailing debouncer, one burst per measured iteration (5 calls 1 ms apart,
/// T = 20 ms), and how late its run starts after its deadline (last call + T). The seeds' pattern beside it.
enum LatenessBenchmarks {
  static let interval = Duration.milliseconds(20)
  static let lateness = BenchmarkMetric.custom("lateness (us)", useScalingFactor: false)
  static let earlyRuns = BenchmarkMetric.custom("early runs", useScalingFactor: false)

  static func register() {
    let configuration = Benchmark.Configuration(
      metrics: [lateness, earlyRuns], warmupIterations: 3, maxDuration: .seconds(10), maxIterations: 300)
    let queue = DispatchQueue(label: "LatenessBenchmarks")

    let clock = ReadingClock()
    let debouncerRun = RunStart()
    let debouncer = Debouncer<Int>(interval: interval, queue: queue, clock: clock) { _ in
      debouncerRun.nanoseconds = DispatchTime.now().uptimeNanoseconds
      debouncerRun.ran.signal()
    }
    Benchmark("Lateness.RateLimit.Debouncer.trailing", configuration: configuration) { benchmark in
      let deadline = burst {
        debouncer.call($0)
      } deadline: {
        clock.latestReading + interval
      }
      debouncerRun.ran.wait()
      record(benchmark, start: debouncerRun.nanoseconds, deadline: deadline)
    }

    let seedRun = RunStart()
    let seed = SeedDebouncer(delay: .milliseconds(20), queue: queue) { _ in
      seedRun.nanoseconds = DispatchTime.now().uptimeNanoseconds
      seedRun.ran.signal()
    }
    Benchmark("Lateness.Seeds.DispatchWorkItemDebounce", configuration: configuration) { benchmark in
      let deadline = burst {
        seed.call($0)
      } deadline: {
        .nanoseconds(seed.lastDeadline.uptimeNanoseconds)
      }
      seedRun.ran.wait()
      record(benchmark, start: seedRun.nanoseconds, deadline: deadline)
    }
  }

  /// Five calls, 1 ms apart; returns the deadline of the run they lead to.
  static func burst(_ call: (Int) -> Void, deadline: () -> Duration) -> Duration {
    var latest = Duration.zero
    for value in 0..<5 {
      call(value)
      latest = deadline()
      if value < 4 { usleep(1_000) }
    }
    return latest
  }

  static func record(_ benchmark: Benchmark, start: UInt64, deadline: Duration) {
    let deadlineNanoseconds =
      deadline.components.seconds * 1_000_000_000 + deadline.components.attoseconds / 1_000_000_000
    let late = Int64(start) - deadlineNanoseconds
    benchmark.measurement(lateness, Int(max(late, 0) / 1_000))
    benchmark.measurement(earlyRuns, late < 0 ? 1 : 0)
  }
}
