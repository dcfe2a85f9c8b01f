import RateLimit
import Testing

@testable import RateLimitHTTP

/// A concurrency limiter that counts its decisions, to tell whether a request took a lease at all.
final class CountingConcurrencyLimiter: SharedConcurrencyLimiter {
  let base: KeyedConcurrencyLimiter<String>
  private let decisions = LockedValue(0)

  init(limit: Int) { base = KeyedConcurrencyLimiter<String>(limit: limit) }

  var decided: Int { decisions.withLock { $0 } }
  var limit: Int { base.limit }
  func tryAcquire(_ permits: Int, for key: String) async throws -> Lease? { base.tryAcquire(permits, for: key) }
  func decide(_ permits: Int, for key: String) async throws -> LeaseDecision {
    decisions.withLock { $0 += 1 }
    return base.decide(permits, for: key)
  }
  func inUse(for key: String) async throws -> Int { base.inUse(for: key) }
}

/// SPEC 4.4, the gate and the lease: a concurrency policy is decided with the request's other policies all or
/// nothing; a granted request's lease is the caller's to release; its fields have `q`, `qu` and `r` alone.
@Suite struct ConcurrencyPolicyGateTests {
  static func fields(_ outcome: RateLimitGate.Outcome) -> [String] {
    switch outcome {
    case .granted(let fields): fields.map { "\($0.name): \($0.value)" }
    case .refused(let refusal): refusal.fields.map { "\($0.name): \($0.value)" }
    case .badRequest: []
    }
  }

  /// A grant: the exact fields; the lease held until the caller releases it (or drops the handle).
  @Test func aGrantHoldsItsLeaseUntilReleasedAndSaysSoInItsFields() async throws {
    let inFlight = KeyedConcurrencyLimiter<String>(limit: 4)
    let gate = RateLimitGate([RateLimitPolicy("inflight", concurrency: inFlight)])
    let (first, leases) = try await gate.decideHolding(key: "team")
    #expect(
      Self.fields(first) == [
        #"RateLimit-Policy: "inflight";q=4;qu="concurrent-requests""#, #"RateLimit: "inflight";r=3"#,
      ])
    #expect(leases.policies == ["inflight"])
    #expect(inFlight.inUse(for: "team") == 1)
    var second: RateLimitGate.Leases? = try await gate.decideHolding(key: "team").leases
    #expect(inFlight.inUse(for: "team") == 2)
    leases.release()
    leases.release()
    #expect(inFlight.inUse(for: "team") == 1)
    second = nil  // deallocated unreleased: released
    #expect(second == nil)
    #expect(inFlight.inUse(for: "team") == 0)
    // `decide(key:)` hands no handle: nothing stays held.
    _ = try await gate.decide(key: "team")
    #expect(inFlight.inUse(for: "team") == 0)
  }

  /// A refusal by the concurrency policy: 429 with `Retry-After: 1`, and the rate policy's grant taken back.
  @Test func aRefusedLeaseTakesBackTheRateGrant() async throws {
    let requests = KeyedRateLimiter<String>(limit: 10, per: .seconds(60), clock: ManualClock())
    let inFlight = KeyedConcurrencyLimiter<String>(limit: 1)
    let gate = RateLimitGate([RateLimitPolicy("rpm", requests), RateLimitPolicy("inflight", concurrency: inFlight)])
    let (granted, held) = try await gate.decideHolding(key: "team")
    #expect(
      Self.fields(granted) == [
        #"RateLimit-Policy: "rpm";q=10;w=60, "inflight";q=1;qu="concurrent-requests""#,
        #"RateLimit: "rpm";r=9;t=60, "inflight";r=0"#,
      ])
    let (outcome, leases) = try await gate.decideHolding(key: "team")
    guard case .refused(let refusal) = outcome else {
      Issue.record("not refused: \(outcome)")
      return
    }
    #expect(leases.isEmpty)
    #expect(refusal.refusedBy == ["inflight"])
    #expect(refusal.retryAfter == .seconds(1))
    // The rate grant was taken back: `r` as after the first request.
    #expect(
      Self.fields(outcome) == [
        "Retry-After: 1", #"RateLimit-Policy: "rpm";q=10;w=60, "inflight";q=1;qu="concurrent-requests""#,
        #"RateLimit: "rpm";r=9;t=60, "inflight";r=0"#,
      ])
    #expect(requests.peek(1, for: "team").remaining == 8)  // 9 left, 8 after one more: the refusal took nothing
    #expect(inFlight.inUse(for: "team") == 1)
    held.release()
    #expect(inFlight.inUse(for: "team") == 0)
  }

  /// A refusal by a rate policy: no lease is taken, not even for a moment (the concurrency limiter is not
  /// asked), and the concurrency policy is left out of the fields.
  @Test func aRateRefusalTakesNoLease() async throws {
    let requests = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: ManualClock())
    let inFlight = CountingConcurrencyLimiter(limit: 4)
    let gate = RateLimitGate([RateLimitPolicy("rpm", requests), RateLimitPolicy("inflight", concurrency: inFlight)])
    let (first, held) = try await gate.decideHolding(key: "team")
    guard case .granted = first else {
      Issue.record("not granted")
      return
    }
    held.release()
    #expect(inFlight.decided == 1)
    let (outcome, leases) = try await gate.decideHolding(key: "team")
    guard case .refused(let refusal) = outcome else {
      Issue.record("not refused")
      return
    }
    #expect(leases.isEmpty)
    #expect(refusal.refusedBy == ["rpm"])
    #expect(inFlight.decided == 1)
    #expect(inFlight.base.inUse(for: "team") == 0)
    #expect(
      Self.fields(outcome) == ["Retry-After: 60", #"RateLimit-Policy: "rpm";q=1;w=60"#, #"RateLimit: "rpm";r=0;t=60"#])
  }

  /// Both refuse: `Retry-After` is the larger of 1 s and the rate policy's wait; an app's own rate store decided
  /// at once beside the lease, whose lease is released when the store refuses.
  @Test func bothRefusingWaitsTheLongerAndAStoreRefusalReleasesTheLease() async throws {
    let requests = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: ManualClock())
    _ = requests.decide(for: "team")
    let inFlight = KeyedConcurrencyLimiter<String>(limit: 1)
    let held = try #require(inFlight.tryAcquire(for: "team"))
    // Not in process: decided at once beside the lease, not before it.
    let gate = RateLimitGate([
      RateLimitPolicy("rpm", AppStore(requests)), RateLimitPolicy("inflight", concurrency: inFlight),
    ])
    guard case .refused(let refusal) = try await gate.decide(key: "team") else {
      Issue.record("not refused")
      return
    }
    #expect(refusal.refusedBy == ["rpm", "inflight"])
    #expect(refusal.retryAfter == .seconds(60))
    held.release()
    // The lease is granted, the store refuses: the lease is released.
    let (outcome, leases) = try await gate.decideHolding(key: "team")
    guard case .refused(let alone) = outcome else {
      Issue.record("not refused")
      return
    }
    #expect(alone.refusedBy == ["rpm"])
    #expect(leases.isEmpty)
    #expect(inFlight.inUse(for: "team") == 0)
    // A shorter rate wait than a second: still 1 s.
    let fast = KeyedRateLimiter<String>(limit: 1, per: .milliseconds(200), clock: ManualClock())
    _ = fast.decide(for: "team")
    let busy = try #require(inFlight.tryAcquire(for: "team"))
    let short = RateLimitGate([
      RateLimitPolicy("fast", AppStore(fast)), RateLimitPolicy("inflight", concurrency: inFlight),
    ])
    guard case .refused(let both) = try await short.decide(key: "team") else {
      Issue.record("not refused")
      return
    }
    #expect(both.refusedBy == ["fast", "inflight"])
    #expect(both.retryAfter == .seconds(1))
    #expect(both.fields.first?.value == "1")
    busy.release()
  }

  /// `permits(_:)` keeps it a concurrency policy; `.shadow` never refuses, reports the refusal, and a granted
  /// shadow lease is held as an enforced one is.
  @Test func permitsAndShadow() async throws {
    let inFlight = KeyedConcurrencyLimiter<String>(limit: 3)
    let policy = RateLimitPolicy("inflight", concurrency: inFlight).permits(2)
    #expect(policy.permits == 2)
    #expect(policy.concurrency != nil)
    let (outcome, leases) = try await RateLimitGate([policy]).decideHolding(key: "k")
    #expect(Self.fields(outcome).last == #"RateLimit: "inflight";r=1"#)
    #expect(inFlight.inUse(for: "k") == 2)
    let shadow = RateLimitGate([
      RateLimitPolicy("api", KeyedRateLimiter<String>(limit: 10, per: .seconds(10), clock: ManualClock())),
      RateLimitPolicy("inflight", concurrency: inFlight, mode: .shadow).permits(2),
    ])
    let refused = try await shadow.decideRequest(key: "k")
    guard case .granted(let fields) = refused.outcome else {
      Issue.record("a shadow policy refused")
      return
    }
    #expect(refused.shadowRefused == ["inflight"])
    #expect(refused.leases.isEmpty)
    #expect(fields.map(\.value) == [#""api";q=10;w=10"#, #""api";r=9;t=10"#])
    leases.release()
    let granted = try await shadow.decideRequest(key: "k")
    #expect(granted.shadowRefused.isEmpty)
    #expect(granted.leases.policies == ["inflight"])
    #expect(inFlight.inUse(for: "k") == 2)
    granted.leases.release()
    #expect(inFlight.inUse(for: "k") == 0)
  }

  /// A limiter that throws: 503 as for any store, and the other grants (a lease among them) taken back.
  @Test func aThrowingStoreReleasesTheLease() async throws {
    let inFlight = KeyedConcurrencyLimiter<String>(limit: 2)
    let gate = RateLimitGate([
      RateLimitPolicy("inflight", concurrency: inFlight), RateLimitPolicy("store", ThrowingStore()),
    ])
    await #expect(throws: (any Error).self) { try await gate.decideHolding(key: "k") }
    #expect(inFlight.inUse(for: "k") == 0)
  }
}

/// An app's own rate store over a `KeyedRateLimiter` (decided as other stores are: at once, beside the lease).
struct AppStore: SharedKeyedLimiter {
  let base: KeyedRateLimiter<String>
  init(_ base: KeyedRateLimiter<String>) { self.base = base }
  func tryAcquire(_ permits: Int, for key: String) async throws -> Bool { base.tryAcquire(permits, for: key) }
  func retryAfter(_ permits: Int, for key: String) async throws -> Duration? { base.retryAfter(permits, for: key) }
  func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision { base.decide(permits, for: key) }
}

struct ThrowingStore: SharedKeyedLimiter {
  struct Away: Error {}
  func tryAcquire(_ permits: Int, for key: String) async throws -> Bool { throw Away() }
  func retryAfter(_ permits: Int, for key: String) async throws -> Duration? { throw Away() }
  func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision { throw Away() }
}
