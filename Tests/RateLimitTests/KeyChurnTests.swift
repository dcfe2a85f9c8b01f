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
}
