import RateLimit
import RateLimitHTTP
import Synchronization
import Testing

/// A limiter of the test's own (`SharedKeyedLimiter` only, as an app's store is) over a `KeyedRateLimiter`, that
/// counts the decisions asked of it: a shadow policy that "sends" something is one that is asked.
final class CountingLimiter: SharedKeyedLimiter {
  let inner: KeyedRateLimiter<String>
  private let asked = Mutex(0)

  init(_ inner: KeyedRateLimiter<String>) {
    self.inner = inner
  }

  /// How many decisions (of any kind) were asked.
  var calls: Int { asked.withLock { $0 } }

  func tryAcquire(_ permits: Int, for key: String) async throws -> Bool {
    asked.withLock { $0 += 1 }
    return inner.tryAcquire(permits, for: key)
  }

  func retryAfter(_ permits: Int, for key: String) async throws -> Duration? {
    asked.withLock { $0 += 1 }
    return inner.retryAfter(permits, for: key)
  }

  func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision {
    asked.withLock { $0 += 1 }
    return inner.decide(permits, for: key)
  }
}

/// SPEC 4.3.1, "A shadow costs nothing when enforced policies refuse": the gate decides the enforced policies
/// first, and the shadow policies only when every enforced one granted.
@Suite struct ShadowAfterEnforcedTests {
  /// An in-process enforced policy refuses: neither an app's own shadow store (counted) nor an in-process shadow
  /// policy is decided; nothing is reported as `shadow_refused`.
  @Test func anInProcessRefusalDecidesNoShadowPolicy() async throws {
    let clock = ManualClock()
    let enforced = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: clock)
    let remote = CountingLimiter(KeyedRateLimiter(limit: 100, per: .seconds(60), clock: clock))
    let local = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: clock)
    let gate = RateLimitGate([
      RateLimitPolicy("api", enforced), RateLimitPolicy("trial", remote, mode: .shadow),
      RateLimitPolicy("trial-local", local, mode: .shadow),
    ])
    let first = try await gate.decideRequest(key: "k")
    guard case .granted = first.outcome else {
      Issue.record("the first request was refused")
      return
    }
    #expect(remote.calls == 1 && first.shadowRefused.isEmpty)
    for request in 2...6 {
      let refused = try await gate.decideRequest(key: "k")
      guard case .refused(let refusal) = refused.outcome else {
        Issue.record("request \(request) was granted")
        continue
      }
      #expect(refusal.refusedBy == ["api"])
      // "trial-local" holds one permit of one: decided, it would refuse.
      #expect(refused.shadowRefused.isEmpty, "request \(request)")
    }
    #expect(remote.calls == 1, "a shadow store was asked for requests an enforced policy refused")
    #expect(remote.inner.peek(1, for: "k").remaining == 98)
    #expect(!local.peek(1, for: "k").isGranted)
  }

  /// An enforced store that is not in process refuses: the shadow policies, in process or not, are not decided.
  @Test func aStoreRefusalDecidesNoShadowPolicy() async throws {
    let clock = ManualClock()
    let enforced = CountingLimiter(KeyedRateLimiter(limit: 1, per: .seconds(60), clock: clock))
    let remote = CountingLimiter(KeyedRateLimiter(limit: 100, per: .seconds(60), clock: clock))
    let local = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: clock)
    let gate = RateLimitGate([
      RateLimitPolicy("trial-local", local, mode: .shadow), RateLimitPolicy("api", enforced),
      RateLimitPolicy("trial", remote, mode: .shadow),
    ])
    _ = try await gate.decideRequest(key: "k")
    #expect(remote.calls == 1 && enforced.calls == 1)
    let refused = try await gate.decideRequest(key: "k")
    guard case .refused(let refusal) = refused.outcome else {
      Issue.record("granted")
      return
    }
    #expect(refusal.refusedBy == ["api"])
    #expect(refused.shadowRefused.isEmpty)
    #expect(remote.calls == 1 && enforced.calls == 2)
    // Only the first request's permit: the refused one's shadow decision was never made.
    #expect(!local.peek(1, for: "k").isGranted)
  }

  /// Every enforced policy grants: the shadow policies are decided, and their refusals reported.
  @Test func aGrantedRequestDecidesItsShadowPolicies() async throws {
    let clock = ManualClock()
    let enforced = KeyedRateLimiter<String>(limit: 10, per: .seconds(60), clock: clock)
    let remote = CountingLimiter(KeyedRateLimiter(limit: 1, per: .seconds(60), clock: clock))
    let gate = RateLimitGate([RateLimitPolicy("api", enforced), RateLimitPolicy("trial", remote, mode: .shadow)])
    _ = try await gate.decideRequest(key: "k")
    let second = try await gate.decideRequest(key: "k")
    guard case .granted = second.outcome else {
      Issue.record("refused")
      return
    }
    #expect(second.shadowRefused == ["trial"])
    #expect(remote.calls == 2)
  }
}
