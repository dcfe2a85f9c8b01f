import Testing

@testable import RateLimit

/// Issue 27.1: a stream in which every operation brings a new key. The sweep was due after as many operations
/// as keys held, and every operation added one: it never came, and memory grew with every key ever seen.
@Suite struct KeyChurnTests {
  @Test(arguments: [false, true]) func aStreamOfOneOffKeysKeepsOnlyTheActiveOnes(bucket: Bool) {
    let clock = ManualClock()
    let limiter =
      bucket
      ? KeyedRateLimiter<String>(limit: 1, per: .milliseconds(10), burst: 1, clock: clock)
      : KeyedRateLimiter<String>(limit: 1, per: .milliseconds(10), clock: clock)
    var mostHeld = 0
    for index in 0..<3_000 {
      // About ten keys active at any instant: one new key a millisecond, each at rest 10 ms later.
      #expect(limiter.tryAcquire(for: "client \(index)"))
      clock.advance(by: .milliseconds(1))
      mostHeld = max(mostHeld, limiter.heldWithoutSweeping)
    }
    #expect(mostHeld <= 64, "held \(mostHeld) keys with about 10 active")
  }

  @Test func keyedActionLimitersForgetOneOffKeysToo() {
    let clock = ManualClock()
    let keyed = Keyed<Int, Throttler<Int>> { _ in
      Throttler(interval: .milliseconds(10), mode: .leading, clock: clock) { _ in }
    }
    var mostHeld = 0
    for index in 0..<1_500 {
      keyed.call(index, for: index)
      clock.advance(by: .milliseconds(1))
      mostHeld = max(mostHeld, keyed.heldWithoutSweeping)
    }
    #expect(mostHeld <= 128, "held \(mostHeld) limiters with about 10 active")
  }

  /// Issue 27.1: `Keyed` swept every limiter it held at once, every 4 × count operations: amortized O(1), but one
  /// operation in thousands stalled (1.2 s with a million limiters held). Now no operation examines more than a
  /// few limiters, however many are held.
  @Test func noOperationSweepsAnUnboundedBatch() {
    let clock = ManualClock()
    let keyed = Keyed<Int, Throttler<Int>> { _ in
      Throttler(interval: .seconds(3_600), mode: .leading, clock: clock) { _ in }
    }
    for index in 0..<4_000 { keyed.call(index, for: index) }
    #expect(keyed.heldWithoutSweeping == 4_000)
    #expect(keyed.limiters.mostExaminedAtOnce <= 16, "one operation examined \(keyed.limiters.mostExaminedAtOnce)")
    // Once they are at rest, new keys forget them, two for every limiter made.
    clock.advance(by: .seconds(3_600))
    for index in 0..<2_000 { keyed.call(index, for: 10_000 + index) }
    #expect(keyed.heldWithoutSweeping == 2_000)
    #expect(keyed.limiters.mostExaminedAtOnce <= 16, "one operation examined \(keyed.limiters.mostExaminedAtOnce)")
  }
}
