import RateLimit
import RateLimitHTTP
import Testing

/// A store answered by `.deny` on every request, as a `PostgresRateLimiter` under `.deny` with its database away
/// (`policyDecision(granted: false)`): refused, `remaining` 0, no `retryAfter`, `isFallback`, `t` a whole window.
struct DeniedLimiter: SharedKeyedLimiter {
  static let decision = RateLimitDecision(
    isGranted: false, limit: 10, window: .seconds(900), remaining: 0, resetAfter: .zero, retryAfter: nil,
    isFallback: true, effectiveWindow: .seconds(900))
  func tryAcquire(_ permits: Int, for key: String) async throws -> Bool { false }
  func retryAfter(_ permits: Int, for key: String) async throws -> Duration? { nil }
  func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision { Self.decision }
}

/// SPEC 4.3.1, "Fail closed is not a quota": a request refused only because a policy under `.deny` could not
/// reach its store is answered as `.throwError`'s is (the gate throws: 503, `Retry-After: 1`, no fields).
@Suite struct FailClosedGateTests {
  /// Refused only by `.deny`: the gate takes back the other grants and throws, as for a store that threw.
  @Test func aDenyAloneThrows() async throws {
    let searches = KeyedRateLimiter<String>(limit: 10, per: .seconds(10), clock: ManualClock())
    let gate = RateLimitGate([RateLimitPolicy("search", searches), RateLimitPolicy("shared", DeniedLimiter())])
    await #expect(throws: (any Error).self) { try await gate.decide(key: "k") }
    #expect(searches.peek(1, for: "k").remaining == 9)
    let alone = RateLimitGate([RateLimitPolicy("shared", DeniedLimiter())])
    await #expect(throws: (any Error).self) { try await alone.decide(key: "k") }
  }

  /// Refused by another policy's rule as well: a 429 for that policy (its `Retry-After`), and no fields for the
  /// policy that could not reach its store (it knows nothing of the key).
  @Test func aRuleRefusalBesideADenyIsA429WithoutTheDeniedFields() async throws {
    let searches = KeyedRateLimiter<String>(limit: 1, per: .seconds(10), clock: ManualClock())
    _ = searches.decide(for: "k")
    let gate = RateLimitGate([RateLimitPolicy("search", searches), RateLimitPolicy("shared", DeniedLimiter())])
    guard case .refused(let refusal) = try await gate.decide(key: "k") else {
      Issue.record("not refused")
      return
    }
    #expect(refusal.refusedBy == ["search"])
    #expect(refusal.fields.map(\.name) == ["Retry-After", "RateLimit-Policy", "RateLimit"])
    #expect(refusal.fields.map(\.value) == ["10", #""search";q=1;w=10"#, #""search";r=0;t=10"#])
  }
}
