import Dispatch
import RateLimit

#if canImport(Glibc)
  import Glibc
#endif

// Calls one limiter N times, for valgrind's callgrind (see instructions.sh): the difference between two N, divided,
// is the instructions one call costs. Modes: floor, tl tt tf (Throttler), dl dt dm (Debouncer; dm with maxWait), tr dr
// (trailing with `reducing: +=`), ta da (trailing, an async action, `.waitForPrevious`), dc (trailing, ManualClock);
// permits on one hot key of a KeyedRateLimiter (a token bucket granting far above the call rate): kt tryAcquire,
// kd decide, kp peek (4.2); rt RateLimiter.tryAcquire; ku `update` of a KeyedRateLimiter token bucket holding 10,000
// keys in debt, or the third argument's count (up to 16 updates: not the 33rd, which brings every key under the updates
// kept; run with SWIFT_DETERMINISTIC_HASHING=1, or the keys' hashing differs from one run to the other).
// Leases (4.4): ct `tryAcquire` + `release` on a warm key of a KeyedConcurrencyLimiter (another lease held on it),
// cc the same on a key that comes to rest after every release, cl on a ConcurrencyLimiter.
let mode = CommandLine.arguments[1]
let count = Int(CommandLine.arguments[2])!
let queue = DispatchQueue(label: "cg")
let interval = Duration.seconds(100)
@inline(never) func drive(_ call: (Int) -> Void) { for value in 0..<count { call(value) } }
switch mode {
case "floor":
  let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  pthread_mutex_init(mutex, nil)
  var last: UInt64 = 0
  drive { _ in
    pthread_mutex_lock(mutex)
    let now = DispatchTime.now().uptimeNanoseconds
    if now &- last >= 100_000_000_000 { last = now }
    pthread_mutex_unlock(mutex)
  }
case "tl": let l = Throttler<Int>(interval: interval, mode: .leading, queue: queue) { _ in }; drive { l.call($0) }
case "tt": let l = Throttler<Int>(interval: interval, mode: .trailing, queue: queue) { _ in }; drive { l.call($0) }
case "tf":
  let l = Throttler<Int>(interval: interval, mode: .firstPerDuration, queue: queue) { _ in }; drive { l.call($0) }
case "dl": let l = Debouncer<Int>(interval: interval, mode: .leading, queue: queue) { _ in }; drive { l.call($0) }
case "dt": let l = Debouncer<Int>(interval: interval, mode: .trailing, queue: queue) { _ in }; drive { l.call($0) }
case "dm":
  let l = Debouncer<Int>(interval: interval, mode: .trailing, maxWait: interval * 2, queue: queue) { _ in };
  drive { l.call($0) }
case "tr":
  let l = Throttler<Int>(interval: interval, mode: .trailing, queue: queue, reducing: { $0 += $1 }) { _ in }
  drive { l.call($0) }
case "dr":
  let l = Debouncer<Int>(interval: interval, queue: queue, reducing: { $0 += $1 }) { _ in }
  drive { l.call($0) }
case "ta":
  let l = Throttler<Int>(interval: interval, mode: .trailing, overlap: .waitForPrevious) { _ in }
  drive { l.call($0) }
case "da": let l = Debouncer<Int>(interval: interval, overlap: .waitForPrevious) { _ in }; drive { l.call($0) }
case "dc":
  let l = Debouncer<Int>(interval: interval, queue: queue, clock: ManualClock()) { _ in }
  drive { l.call($0) }
case "kt", "kd", "kp":
  let l = KeyedRateLimiter<String>(limit: 1_000_000_000, per: .seconds(1), burst: 1_000_000)
  let key = "client-1"
  switch mode {
  case "kt": drive { _ in _ = l.tryAcquire(for: key) }
  case "kd": drive { _ in _ = l.decide(for: key) }
  default: drive { _ in _ = l.peek(for: key) }
  }
case "ku":
  // A ManualClock, so that no key comes to rest during the run; a nanosecond between updates.
  let clock = ManualClock()
  let keys = Int(CommandLine.arguments.dropFirst(3).first ?? "") ?? 10_000
  let l = KeyedRateLimiter<String>(limit: 100, per: .seconds(1), burst: 100, clock: clock)
  for key in 0..<keys { _ = l.charge(200, for: "client-\(key)") }
  drive { value in
    clock.advance(by: .nanoseconds(1))
    l.update(limit: 100 + value % 2, per: .seconds(1), burst: 100)
  }
case "rt":
  let l = RateLimiter(limit: 1_000_000_000, per: .seconds(1), burst: 1_000_000)
  drive { _ in _ = l.tryAcquire() }
case "ct", "cc":
  let l = KeyedConcurrencyLimiter<String>(limit: 1_000_000)
  let key = "client-1"
  let warm = mode == "ct" ? l.tryAcquire(for: key) : nil
  drive { _ in l.tryAcquire(for: key)?.release() }
  withExtendedLifetime(warm) {}
case "cl":
  let l = ConcurrencyLimiter(limit: 1_000_000)
  drive { _ in l.tryAcquire()?.release() }
default: fatalError()
}
