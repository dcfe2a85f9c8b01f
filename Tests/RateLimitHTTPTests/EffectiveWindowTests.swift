import RateLimit
import RateLimitHTTP
import RateLimitStoreKit
import Testing

/// SPEC 4.2, "a correction to 4.1: the values of `t`, `q` and `w`" (draft-ietf-httpapi-ratelimit-headers-11).
@Suite struct EffectiveWindowTests {
  /// The SPEC's examples of `q` and `w`: the sustained rate over `quotaWindow`.
  @Test func quotaAndWindowAreTheSustainedRate() {
    let clock = ManualClock()
    func policy(_ limiter: KeyedRateLimiter<String>) -> String {
      RateLimitFields.policy([(name: "p", decision: limiter.decide(for: "k"))])
    }
    #expect(policy(KeyedRateLimiter(limit: 10, per: .seconds(10), burst: 3, clock: clock)) == #""p";q=3;w=3"#)
    #expect(policy(KeyedRateLimiter(limit: 100, per: .seconds(86_400), clock: clock)) == #""p";q=100;w=86400"#)
    #expect(policy(KeyedRateLimiter(limit: 1, per: .milliseconds(1_500), clock: clock)) == #""p";q=1;w=2"#)
    #expect(policy(KeyedRateLimiter(limit: 100, per: .seconds(1), burst: 1, clock: clock)) == #""p";q=100;w=1"#)
    #expect(
      policy(KeyedRateLimiter(limit: 100, per: .seconds(86_400), burst: 100, clock: clock))
        == #""p";q=100;w=86400"#)
    #expect(RateLimitFields.quotaAndWindow(limit: Int.max, quotaWindow: .nanoseconds(1)) == (Int.max, 1))
  }

  /// The SPEC's example of `t`: a daily bucket of 100 after 3 requests says `r=97;t=864`, when one more permit
  /// comes, not `t=2592` (until full, 4.1's `resetAfter`).
  @Test func aDailyBucketAfterThreeRequests() {
    let clock = ManualClock()
    let daily = KeyedRateLimiter<String>(limit: 100, per: .seconds(86_400), burst: 100, clock: clock)
    for _ in 0..<2 { _ = daily.decide(for: "k") }
    let third = daily.decide(for: "k")
    #expect(third.remaining == 97 && third.effectiveWindow == .seconds(864) && third.resetAfter == .seconds(2_592))
    #expect(third.quotaWindow == .seconds(86_400))
    #expect(RateLimitFields.state([(name: "daily", decision: third)]) == #""daily";r=97;t=864"#)
  }

  /// Sliding window: with `remaining` taken now, one more comes when the oldest booking in the window leaves
  /// (a whole window when there is none); none remaining: `retryAfter(1)`.
  @Test func aSlidingWindowsEffectiveWindow() {
    let clock = ManualClock()
    let limiter = KeyedRateLimiter<String>(limit: 3, per: .seconds(10), clock: clock)
    #expect(limiter.decide(for: "k").effectiveWindow == .seconds(10))
    clock.advance(by: .seconds(4))
    #expect(limiter.decide(for: "k").effectiveWindow == .seconds(6))
    #expect(limiter.decide(for: "k").effectiveWindow == .seconds(6))  // none left: retryAfter(1)
    clock.advance(by: .seconds(7))  // the first left at 10 s
    let after = limiter.decide(for: "k")
    #expect(after.remaining == 0 && after.effectiveWindow == .seconds(3))
    #expect(KeyedRateLimiter<String>(limit: 3, per: .zero).decide(for: "k").effectiveWindow == .zero)
  }

  /// A refused request's `Retry-After` is never earlier than the `t` of any policy that refused it, for both
  /// rules, on random timelines (seeded).
  @Test(arguments: [false, true]) func retryAfterIsNeverEarlierThanT(bucket: Bool) async throws {
    var generator = SystemRandomNumberGenerator()
    let seed = UInt64.random(in: 0...UInt64.max, using: &generator)
    var random = SeededGenerator(seed: seed)
    for round in 0..<50 {
      let clock = ManualClock()
      let limit = Int.random(in: 1...5, using: &random)
      let window = Duration.milliseconds(Int64.random(in: 1...5_000, using: &random))
      let limiter =
        bucket
        ? KeyedRateLimiter<String>(
          limit: limit, per: window, burst: Int.random(in: 1...5, using: &random), clock: clock)
        : KeyedRateLimiter<String>(limit: limit, per: window, clock: clock)
      let gate = RateLimitGate([RateLimitPolicy("p", limiter)])
      for _ in 0..<40 {
        clock.advance(by: .milliseconds(Int64.random(in: 0...1_500, using: &random)))
        let permits = Int.random(in: 1...((limiter.burst ?? limit) + 1), using: &random)
        let decision = limiter.decide(permits, for: "k")
        if !decision.isGranted, let retry = decision.retryAfter {
          #expect(retry >= decision.effectiveWindow, "seed \(seed), round \(round): \(decision)")
        }
        if case .refused(let refusal) = try await gate.decide(key: "k"),
          let retryAfter = refusal.fields.first(where: { $0.name == "Retry-After" })?.value,
          let t = refusal.fields.last?.value.split(separator: "=").last
        {
          #expect(Int(retryAfter)! >= Int(t)!, "seed \(seed), round \(round): \(refusal.fields)")
        }
      }
    }
  }
}
