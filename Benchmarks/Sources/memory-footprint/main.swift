// Heap bytes per instance, idle and holding a value, for RateLimit and the seeds' pattern: 10,000 instances,
// the allocator's bytes in use before and after, divided. Allocator overhead (block headers, rounding) is
// included: it is memory the app pays for. Run: swift run --package-path Benchmarks -c release memory-footprint
import CHeapStatistics
import Dispatch
import RateLimit

/// The seeds' debounce pattern, exactly as blog posts give it (Baselines.swift has the same with counters for the
/// timer benchmarks).
final class BlogDebouncer: @unchecked Sendable {
  // @unchecked Sendable: single-threaded, like the snippet it copies.
  private var workItem: DispatchWorkItem?
  private let delay: DispatchTimeInterval
  private let queue: DispatchQueue
  private let action: @Sendable (Int) -> Void

  init(delay: DispatchTimeInterval, queue: DispatchQueue, action: @escaping @Sendable (Int) -> Void) {
    self.delay = delay
    self.queue = queue
    self.action = action
  }

  func call(_ value: Int) {
    workItem?.cancel()
    let action = self.action
    let item = DispatchWorkItem { action(value) }
    workItem = item
    queue.asyncAfter(deadline: .now() + delay, execute: item)
  }
}

let instances = 10_000
let queue = DispatchQueue(label: "memory-footprint")

/// Bytes per instance that `make` builds, idle and after one call each (a value held, its timer armed).
func measure<Limiter>(_ make: () -> Limiter, call: (Limiter) -> Void) -> (idle: Int, holding: Int) {
  var all: [Limiter] = []
  all.reserveCapacity(instances)
  let before = heap_bytes_in_use()
  for _ in 0..<instances { all.append(make()) }
  let idle = heap_bytes_in_use()
  for limiter in all { call(limiter) }
  let holding = heap_bytes_in_use()
  withExtendedLifetime(all) {}
  return ((idle - before) / instances, (holding - before) / instances)
}

let rows: [(String, (idle: Int, holding: Int))] = [
  (
    "RateLimit Throttler<Int>, .trailing",
    measure({ Throttler<Int>(interval: .seconds(60), mode: .trailing, queue: queue) { _ in } }, call: { $0(1) })
  ),
  (
    "RateLimit Debouncer<Int>, .trailing",
    measure({ Debouncer<Int>(interval: .seconds(60), queue: queue) { _ in } }, call: { $0(1) })
  ),
  (
    "RateLimit Debouncer<Int>, .trailing, maxWait",
    measure(
      { Debouncer<Int>(interval: .seconds(60), maxWait: .seconds(120), queue: queue) { _ in } }, call: { $0(1) })
  ),
  (
    "Seeds: DispatchWorkItem debounce",
    measure({ BlogDebouncer(delay: .seconds(60), queue: queue) { _ in } }, call: { $0.call(1) })
  ),
]

/// Bytes per live key of a keyed limiter: `keys` keys used once each.
func perKey(_ make: () -> KeyedRateLimiter<String>, keys: Int = 100_000, bookings: Int = 1) -> Int {
  let names = (0..<keys).map { "client-\($0)" }  // up to 15 bytes: stored inline in the String
  let limiter = make()
  let before = heap_bytes_in_use()
  for name in names {
    for _ in 0..<bookings { _ = limiter.tryAcquire(for: name) }
  }
  let after = heap_bytes_in_use()
  // The names too: released after their last use, they would be subtracted from the limiter's bytes.
  withExtendedLifetime((limiter, names)) {}
  return (after - before) / keys
}

let permitRows: [(String, (idle: Int, holding: Int))] = [
  (
    "RateLimiter, sliding window, N = 100 (full)",
    measure({ RateLimiter(limit: 100, per: .seconds(60)) }, call: { for _ in 0..<100 { _ = $0.tryAcquire() } })
  ),
  (
    "RateLimiter, token bucket (empty)",
    measure({ RateLimiter(limit: 100, per: .seconds(60), burst: 100) }, call: { _ = $0.tryAcquire(100) })
  ),
]

func padded(_ text: String, _ width: Int) -> String {
  text + String(repeating: " ", count: max(0, width - text.count))
}

print(padded("Heap bytes per instance", 48) + "idle    holding a value")
for (name, bytes) in rows {
  print(padded(name, 48) + padded("\(bytes.idle)", 8) + "\(bytes.holding)")
}

print("")
print(padded("Heap bytes per permit limiter", 48) + "idle    used")
for (name, bytes) in permitRows {
  print(padded(name, 48) + padded("\(bytes.idle)", 8) + "\(bytes.holding)")
}
print("")
print("Heap bytes per live key (100,000 String keys, dictionary growth included)")
print(
  padded("KeyedRateLimiter, token bucket", 56)
    + "\(perKey { KeyedRateLimiter(limit: 10, per: .seconds(60), burst: 10) })")
print(
  padded("KeyedRateLimiter, sliding window, N = 10, 1 booking", 56)
    + "\(perKey { KeyedRateLimiter(limit: 10, per: .seconds(60)) })")
print(
  padded("KeyedRateLimiter, sliding window, N = 10, 10 bookings", 56)
    + "\(perKey({ KeyedRateLimiter(limit: 10, per: .seconds(60)) }, bookings: 10))")

/// 100,000 keys used once, then a window with no operation, then one more: the heap bytes the keyed limiter holds
/// at each step (its `count` read last, which forgets every fresh key first).
func memoryBack(_ make: (ManualClock) -> KeyedRateLimiter<String>) -> (used: Int, afterAWindow: Int, count: Int) {
  let clock = ManualClock()
  let names = (0..<100_000).map { "client-\($0)" }
  let before = heap_bytes_in_use()
  let limiter = make(clock)
  for name in names { _ = limiter.tryAcquire(for: name) }
  let used = heap_bytes_in_use() - before
  clock.advance(by: .seconds(60))
  _ = limiter.tryAcquire(for: "one more")
  let count = limiter.count
  let afterAWindow = heap_bytes_in_use() - before
  withExtendedLifetime((limiter, names)) {}
  return (used, afterAWindow, count)
}
for (name, make) in [
  ("token bucket", { KeyedRateLimiter<String>(limit: 10, per: .seconds(60), burst: 10, clock: $0) }),
  ("sliding window", { KeyedRateLimiter<String>(limit: 10, per: .seconds(60), clock: $0) }),
] as [(String, (ManualClock) -> KeyedRateLimiter<String>)] {
  let (used, back, count) = memoryBack(make)
  print(
    padded("KeyedRateLimiter, \(name): 100,000 keys, bytes", 56)
      + "\(used), a window later \(back) (count \(count))")
}

/// Bytes per active key of `Keyed<Int, Debouncer<Int>>`: 10,000 keys, each holding a value with its timer armed.
func perActiveKey() -> Int {
  let keys = 10_000
  let keyed = Keyed<Int, Debouncer<Int>> { _ in Debouncer<Int>(interval: .seconds(60), queue: queue) { _ in } }
  let before = heap_bytes_in_use()
  for key in 0..<keys { keyed.call(key, for: key) }
  let after = heap_bytes_in_use()
  withExtendedLifetime(keyed) {}
  return (after - before) / keys
}
print(padded("Keyed<Int, Debouncer<Int>>, a value held per key", 56) + "\(perActiveKey())")
