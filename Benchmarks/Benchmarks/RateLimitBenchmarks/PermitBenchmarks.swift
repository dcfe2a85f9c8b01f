import Benchmark
import Dispatch
import Foundation
import RateLimit

/// 3.0: the cost of `tryAcquire()` against the same floor as a call (lock, one clock read, a compare), granted and
/// refused, for both algorithms and for keyed limiters with many live keys; and `acquire()` end to end against the
/// hand-rolled actor it replaces.
enum PermitBenchmarks {
  static func register() {
    let floor = Floor(interval: Setup.interval)
    Benchmark("Permits.Floor", configuration: Setup.perCall()) { benchmark in
      for value in benchmark.scaledIterations { floor.call(value) }
    }
    // Granted on every call: a rate far above the call rate. Refused on every call: one permit per 10 s, used.
    let limiters: [(String, RateLimiter)] = [
      ("Permits.SlidingWindow.granted", RateLimiter(limit: 1_000, per: .microseconds(1))),
      ("Permits.TokenBucket.granted", RateLimiter(limit: 1_000_000_000, per: .seconds(1), burst: 1_000_000)),
      ("Permits.SlidingWindow.refused", RateLimiter(limit: 1, per: Setup.interval)),
      ("Permits.TokenBucket.refused", RateLimiter(limit: 1, per: Setup.interval, burst: 1)),
    ]
    for (name, limiter) in limiters {
      _ = limiter.tryAcquire()
      Benchmark(name, configuration: Setup.perCall()) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(limiter.tryAcquire()) }
      }
    }
    for keys in [1, 1_000, 1_000_000] {
      let names = (0..<keys).map { "client-\($0)" }
      let keyed = KeyedRateLimiter<String>(limit: 1_000_000_000, per: .seconds(1), burst: 1_000_000)
      for name in names { _ = keyed.tryAcquire(for: name) }
      Benchmark("Permits.Keyed.TokenBucket.\(keys)keys", configuration: Setup.perCall()) { benchmark in
        var index = 0
        for _ in benchmark.scaledIterations {
          blackHole(keyed.tryAcquire(for: names[index]))
          index = index == keys - 1 ? 0 : index + 1
        }
      }
    }
    // Keyed action limiters: a call for a key whose limiter is held, against the same call on a plain Debouncer.
    let plain = Debouncer<Int>(interval: Setup.interval, queue: Setup.queue, action: Setup.action)
    plain.call(0)
    Benchmark("Keyed.PlainDebouncer.call", configuration: Setup.perCall()) { benchmark in
      for value in benchmark.scaledIterations { plain.call(value) }
    }
    let keyedDebouncers = Keyed<Int, Debouncer<Int>> { _ in
      Debouncer<Int>(interval: Setup.interval, queue: Setup.queue, action: Setup.action)
    }
    for key in 0..<1_000 { keyedDebouncers.call(0, for: key) }
    Benchmark("Keyed.Debouncer.call.1000keys", configuration: Setup.perCall()) { benchmark in
      var key = 0
      for value in benchmark.scaledIterations {
        keyedDebouncers.call(value, for: key)
        key = key == 999 ? 0 : key + 1
      }
    }
    // acquire() end to end: 200 acquires through 100 per 10 ms (a burst, then waiting a window).
    Benchmark("Permits.Acquire.RateLimiter", configuration: endToEnd) { benchmark in
      for _ in benchmark.scaledIterations {
        let limiter = RateLimiter(limit: 100, per: .milliseconds(10))
        for _ in 0..<200 { try? await limiter.acquire() }
      }
    }
    Benchmark("Permits.Acquire.HandRolledActor", configuration: endToEnd) { benchmark in
      for _ in benchmark.scaledIterations {
        let limiter = HandRolledLimiter(limit: 100, per: 0.010)
        for _ in 0..<200 { try? await limiter.acquire() }
      }
    }
  }

  static var endToEnd: Benchmark.Configuration {
    Benchmark.Configuration(
      metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(2), maxIterations: 50)
  }
}

/// The pattern `RateLimiter` replaces, as app code writes it: an actor holding the dates of recent grants, sleeping
/// until the oldest leaves the window.
actor HandRolledLimiter {
  private var grants: [Date] = []
  private let limit: Int
  private let window: TimeInterval

  init(limit: Int, per window: TimeInterval) {
    self.limit = limit
    self.window = window
  }

  func acquire() async throws {
    while true {
      let now = Date()
      grants.removeAll { now.timeIntervalSince($0) >= window }
      if grants.count < limit {
        grants.append(now)
        return
      }
      let wait = window - now.timeIntervalSince(grants[0])
      try await Task.sleep(nanoseconds: UInt64(max(0, wait) * 1_000_000_000))
    }
  }
}
