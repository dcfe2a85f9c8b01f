import RateLimit
import RateLimitStoreKit
import Testing

/// `decide` against `tryAcquire` and the limiter's own answers, on random timelines, both rules.
@Suite struct DecideTests {
  /// The largest p that `retryAfter(p)` says would be granted now (what `remaining` must be).
  static func largestGrantable(_ limiter: KeyedRateLimiter<String>, _ key: String, capacity: Int) -> Int {
    var p = 0
    while p < capacity, limiter.retryAfter(p + 1, for: key) == .zero { p += 1 }
    return p
  }

  @Test(arguments: [nil, 1, 3] as [Int?])
  func decideIsTryAcquirePlusTheKeyAfterIt(burst: Int?) {
    var generator = SeededGenerator(seed: UInt64(burst ?? 0) &+ 17)
    let clock = ManualClock()
    func make() -> KeyedRateLimiter<String> {
      if let burst { return KeyedRateLimiter(limit: 3, per: .milliseconds(100), burst: burst, clock: clock) }
      return KeyedRateLimiter(limit: 3, per: .milliseconds(100), clock: clock)
    }
    let deciding = make()
    let trying = make()
    let capacity = burst ?? 3
    for _ in 0..<600 {
      let key = ["a", "b"].randomElement(using: &generator)!
      let permits = Int.random(in: 1...(capacity + 1), using: &generator)
      switch Int.random(in: 0..<10, using: &generator) {
      case 0..<6:
        let retry = deciding.retryAfter(permits, for: key)
        let decision = deciding.decide(permits, for: key)
        #expect(decision.isGranted == trying.tryAcquire(permits, for: key))
        #expect(decision.limit == capacity && decision.window == .milliseconds(100))
        #expect(decision.retryAfter == (decision.isGranted ? nil : retry))
        #expect(decision.remaining == Self.largestGrantable(deciding, key, capacity: capacity))
        if decision.resetAfter > .zero {
          // At rest exactly resetAfter from now, not a nanosecond earlier.
          #expect(deciding.retryAfter(capacity, for: key) != nil)
        }
      case 6..<8:
        let a = deciding.reserve(1, for: key, within: .milliseconds(50))
        let b = trying.reserve(1, for: key, within: .milliseconds(50))
        #expect(a?.time == b?.time)
      default:
        clock.advance(by: .milliseconds(Int64.random(in: 0...40, using: &generator)))
      }
    }
  }

  @Test(arguments: [nil, 2] as [Int?])
  func resetAfterIsWhenTheKeyIsAtRest(burst: Int?) {
    var generator = SeededGenerator(seed: 99 &+ UInt64(burst ?? 0))
    for _ in 0..<100 {
      let clock = ManualClock()
      let limiter: KeyedRateLimiter<String> =
        if let burst {
          KeyedRateLimiter(limit: 2, per: .milliseconds(100), burst: burst, clock: clock)
        } else {
          KeyedRateLimiter(limit: 2, per: .milliseconds(100), clock: clock)
        }
      var last = limiter.decide(for: "k")
      for _ in 0..<Int.random(in: 0...4, using: &generator) {
        clock.advance(by: .milliseconds(Int64.random(in: 0...60, using: &generator)))
        last = limiter.decide(for: "k")
      }
      #expect(last.resetAfter > .zero)
      clock.advance(by: last.resetAfter - .nanoseconds(1))
      #expect(limiter.count == 1)
      clock.advance(by: .nanoseconds(1))
      #expect(limiter.count == 0)
    }
  }

  @Test func rateLimiterDecides() {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 2, per: .seconds(10), clock: clock)
    #expect(
      limiter.decide()
        == RateLimitDecision(
          isGranted: true, limit: 2, window: .seconds(10), remaining: 1, resetAfter: .seconds(10), retryAfter: nil))
    clock.advance(by: .seconds(4))
    #expect(limiter.decide().remaining == 0)
    let refused = limiter.decide()
    #expect(!refused.isGranted && refused.retryAfter == .seconds(6) && refused.resetAfter == .seconds(10))
    #expect(limiter.decide(3).retryAfter == nil)
  }

  @Test func hugeNumbersSaturate() {
    // Issue 27.4: tryAcquire(.max) twice trapped with an arithmetic overflow.
    let window = RateLimiter(limit: .max, per: .seconds(1), clock: ManualClock())
    #expect(window.tryAcquire(.max))
    #expect(!window.tryAcquire(.max))
    #expect(window.reserve(.max) != nil)
    #expect(window.decide(.max).remaining == 0)
    let bucket = RateLimiter(limit: .max, per: .seconds(1), burst: .max, clock: ManualClock())
    #expect(bucket.tryAcquire(.max))
    #expect(bucket.reserve(.max) != nil)
    #expect(bucket.reserve(.max) != nil)
    let keyed = KeyedRateLimiter<String>(limit: .max, per: .seconds(1), clock: ManualClock())
    #expect(keyed.tryAcquire(.max, for: "k"))
    #expect(!keyed.tryAcquire(.max, for: "k"))
    #expect(keyed.reserve(.max, for: "k") != nil)
  }
}

/// An undoable grant taken back later than it was made, after other operations (which forget and prune), as
/// RateLimitHTTP does on a real clock: found by the demo, where a refused request kept a token bucket's permit.
@Suite struct UndoTests {
  @Test(arguments: [nil, 5] as [Int?]) func anUndoLaterGivesThePermitBack(burst: Int?) async {
    let clock = ManualClock()
    let limiter =
      if let burst {
        KeyedRateLimiter<String>(limit: 5, per: .seconds(86_400), burst: burst, clock: clock)
      } else {
        KeyedRateLimiter<String>(limit: 5, per: .seconds(86_400), clock: clock)
      }
    #expect(limiter.decide(for: "k").remaining == 4)
    let grant = limiter.decideUndoably(1, for: "k")
    #expect(grant.decision.remaining == 3)
    clock.advance(by: .microseconds(20))
    for other in 0..<8 { _ = limiter.tryAcquire(for: "other \(other)") }
    let after = await grant.undo()
    #expect(after.remaining == 4)
    #expect(limiter.decide(for: "k").remaining == 3)
  }
}
