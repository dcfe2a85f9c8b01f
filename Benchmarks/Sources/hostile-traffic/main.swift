// Issue 27's hostile traffic, measured in release: a stream of one-off keys (heap in use as it goes), decisions
// with bookings ahead, booking and cancelling many waiters, a step back with many keys. Run:
//   swift run --package-path Benchmarks -c release hostile-traffic [scenario …]
// Scenarios: one-off-keys, keyed-throttlers, keyed-held, keyed-call, bookings-ahead, one-key, step-back,
// churn-latency (all by default).
import CHeapStatistics
import Dispatch
import RateLimit

#if canImport(Glibc)
  import Glibc
#endif

/// Whether to run `scenario`: named on the command line, or none named.
func runs(_ scenario: String) -> Bool {
  let named = CommandLine.arguments.dropFirst()
  return named.isEmpty || named.contains(scenario)
}

/// Nanoseconds `body` takes, on the uptime clock.
func nanoseconds(_ body: () -> Void) -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  body()
  return Double(DispatchTime.now().uptimeNanoseconds - start)
}

func megabytes(_ bytes: Int) -> String {
  let tenths = (bytes * 10) / (1 << 20)
  return "\(tenths / 10).\(abs(tenths % 10)) MB"
}

/// A clock whose readings the benchmark sets, that can step back; timers run never (nothing waits here).
final class SteppingClock: RateLimitClock, @unchecked Sendable {
  // @unchecked Sendable: one thread.
  var now: Duration = .seconds(1_000)
  func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {}
}

// 1. One-off keys: every operation a new key, about 10 active at any instant (window 10 µs, 1 µs a key).
for count in [200_000, 2_000_000, 10_000_000] where runs("one-off-keys") {
  let clock = SteppingClock()
  let limiter = KeyedRateLimiter<String>(limit: 1, per: .microseconds(10), clock: clock)
  let before = heap_bytes_in_use()
  var most = 0
  var worst = 0.0
  let total = nanoseconds {
    for index in 0..<count {
      clock.now += .microseconds(1)
      let key = "client \(index)"
      let elapsed = nanoseconds { _ = limiter.tryAcquire(for: key) }
      worst = max(worst, elapsed)
      if index % 10_000 == 0 { most = max(most, heap_bytes_in_use() - before) }
    }
  }
  print(
    "one-off String keys: \(count) keys, heap growth at most \(megabytes(most)), "
      + "\(Int(total / Double(count))) ns a key (with the key's formatting), slowest op \(Int(worst / 1_000)) µs")
}

if runs("keyed-throttlers") {
  // A ManualClock: its advance runs the throttlers' timers, so they come back to rest.
  let clock = ManualClock()
  let keyed = Keyed<Int, Throttler<Int>> { _ in
    Throttler(interval: .microseconds(10), mode: .leading, clock: clock) { _ in }
  }
  let before = heap_bytes_in_use()
  var most = 0
  var worst = 0.0
  let count = 1_000_000
  for index in 0..<count {
    clock.advance(by: .microseconds(1))
    worst = max(worst, nanoseconds { keyed.call(index, for: index) })
    if index % 10_000 == 0 { most = max(most, heap_bytes_in_use() - before) }
  }
  print(
    "Keyed<Int, Throttler<Int>> (leading): \(count) one-off keys, heap growth at most \(megabytes(most)), "
      + "slowest call \(Int(worst / 1_000)) µs")
}

if runs("keyed-held") {
  // A million limiters held and active (none comes to rest within the run): the slowest single call.
  let clock = ManualClock()
  let keyed = Keyed<Int, Throttler<Int>> { _ in
    Throttler(interval: .seconds(3_600), mode: .leading, clock: clock) { _ in }
  }
  var worst = 0.0
  let count = 1_000_000
  let total = nanoseconds {
    for index in 0..<count { worst = max(worst, nanoseconds { keyed.call(index, for: index) }) }
  }
  print(
    "Keyed<Int, Throttler<Int>> (leading, 1 h): \(count) keys held, \(Int(total / Double(count))) ns a call, "
      + "slowest call \(Int(worst / 1_000)) µs")
}

if runs("keyed-call") {
  // The steady call of `Keyed`: 1,000 debouncers held (none fires within the run), called in turn.
  let keyed = Keyed<Int, Debouncer<Int>> { _ in Debouncer<Int>(interval: .seconds(600), queue: .main) { _ in } }
  for key in 0..<1_000 { keyed.call(0, for: key) }
  // KEYED_CALLS: fewer calls, for callgrind (instructions a call: the difference of two counts).
  let calls = Int(getenv("KEYED_CALLS").map { String(cString: $0) } ?? "") ?? 5_000_000
  let elapsed = nanoseconds { for index in 0..<calls { keyed.call(index, for: index % 1_000) } }
  print("Keyed<Int, Debouncer<Int>>, 1,000 keys held: \(Int(elapsed / Double(calls))) ns a call")
}

// 2. Bookings ahead: tryAcquire + retryAfter with 0, 1,000 and 50,000 bookings ahead; booking and cancelling.
for ahead in [0, 1_000, 50_000] where runs("bookings-ahead") {
  let clock = SteppingClock()
  let limiter = RateLimiter(limit: 10, per: .seconds(1), clock: clock)
  var bookings: [RateLimiter.Reservation] = []
  let booking = nanoseconds {
    for _ in 0..<max(ahead, 10) { bookings.append(limiter.reserve()!) }
  }
  let pairs = 10_000
  let pair = nanoseconds {
    for _ in 0..<pairs {
      _ = limiter.tryAcquire()
      _ = limiter.retryAfter()
    }
  }
  let cancelling = nanoseconds { for booking in bookings.reversed() { booking.cancel() } }
  print(
    "sliding window, \(ahead) booked ahead: tryAcquire + retryAfter \(Int(pair / Double(pairs))) ns a pair; "
      + "booking them \(Int(booking / 1_000_000)) ms, cancelling them \(Int(cancelling / 1_000_000)) ms")
}

if runs("one-key") {
  let clock = SteppingClock()
  let limiter = KeyedRateLimiter<String>(limit: 10_000, per: .seconds(1), clock: clock)
  let grants = 200_000
  let elapsed = nanoseconds {
    for _ in 0..<grants {
      clock.now += .microseconds(100)
      _ = limiter.tryAcquire(for: "one")
    }
  }
  print("KeyedRateLimiter, one key, N = 10,000: \(Int(elapsed / Double(grants))) ns a grant")
}

// 3. A step back with many keys held, for both rules.
for bucket in [false, true] where runs("step-back") {
  let clock = SteppingClock()
  let limiter =
    bucket
    ? KeyedRateLimiter<Int>(limit: 1, per: .seconds(3_600), burst: 1, clock: clock)
    : KeyedRateLimiter<Int>(limit: 1, per: .seconds(3_600), clock: clock)
  let keys = 1_000_000
  // Every key with a booking ahead as well (kept whole: the keys a step moved one by one).
  for key in 0..<keys { _ = limiter.tryAcquire(for: key); _ = limiter.reserve(for: key) }
  clock.now -= .microseconds(1)
  let step = nanoseconds { _ = limiter.tryAcquire(for: -1) }
  print(
    "KeyedRateLimiter (\(bucket ? "token bucket" : "sliding window")), \(keys) keys held, each with a booking "
      + "ahead: the call that takes in a 1 µs step back \(Int(step / 1_000)) µs")
}

if runs("step-back") {
  // One token bucket with 50,000 waiters' bookings ahead.
  let clock = SteppingClock()
  let limiter = RateLimiter(limit: 1, per: .seconds(1), burst: 1, clock: clock)
  var bookings: [RateLimiter.Reservation] = []
  for _ in 0..<50_000 { bookings.append(limiter.reserve()!) }
  clock.now -= .microseconds(1)
  let step = nanoseconds { _ = limiter.tryAcquire() }
  print("RateLimiter (token bucket), 50000 bookings ahead: the call that takes in a 1 µs step back \(Int(step)) ns")
}

// 4. Latency percentiles at a million active keys with churn: every operation a new key, each active for a
// window of a million operations.
if runs("churn-latency") {
  let clock = SteppingClock()
  let limiter = KeyedRateLimiter<Int>(limit: 1, per: .seconds(1), clock: clock)
  let warmUp = 1_000_000
  let measured = 2_000_000
  var samples: [Double] = []
  samples.reserveCapacity(measured)
  for index in 0..<(warmUp + measured) {
    clock.now += .microseconds(1)
    let elapsed = nanoseconds { _ = limiter.tryAcquire(for: index) }
    if index >= warmUp { samples.append(elapsed) }
  }
  samples.sort()
  func percentile(_ p: Double) -> Int { Int(samples[min(samples.count - 1, Int(Double(samples.count) * p))]) }
  print(
    "KeyedRateLimiter<Int>, ~1,000,000 active keys, a new key an operation: tryAcquire p50 \(percentile(0.5)) ns, "
      + "p99 \(percentile(0.99)) ns, p99.9 \(percentile(0.999)) ns, max \(Int(samples.last! / 1_000)) µs")
}
