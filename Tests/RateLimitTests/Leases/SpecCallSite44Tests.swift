import RateLimit
import Testing

/// SPEC 4.4's in-process call sites, compiled as written and run.
@Suite struct SpecCallSite44Tests {
  func export(_ tenant: String) async throws -> String { "export of \(tenant)" }

  @Test func twoExportsPerTenantAtATime() async throws {
    let tenant = "acme"
    // Two exports per tenant at a time, in this process; the others wait their turn.
    let exports = KeyedConcurrencyLimiter<String>(limit: 2)
    let file = try await exports.withLease(for: tenant) { try await export(tenant) }
    #expect(file == "export of acme")
    #expect(exports.count == 0)
  }

  @Test func theDeclaredShapes() async throws {
    let limiter = ConcurrencyLimiter(limit: 2, clock: ManualClock())
    let lease: Lease? = limiter.tryAcquire()
    let decision: LeaseDecision = limiter.decide()
    #expect(decision.isGranted && decision.lease != nil && decision.limit == 2 && decision.remaining == 0)
    #expect(!decision.isFallback)
    let own = LeaseDecision(lease: nil, limit: 4, remaining: 1, isFallback: true)
    #expect(!own.isGranted && own.isFallback)
    let shared: any SharedConcurrencyLimiter = KeyedConcurrencyLimiter<String>(limit: 3)
    #expect(shared.limit == 3)
    let sharedLease = try await shared.tryAcquire(2, for: "k")
    #expect(try await shared.inUse(for: "k") == 2)
    #expect(try await shared.decide(1, for: "k").remaining == 0)
    withExtendedLifetime((lease, sharedLease)) {}
    let error: RateLimiterError = .waitedTooLong(maxWait: .seconds(1))
    #expect(error == .waitedTooLong(maxWait: .seconds(1)))
    limiter.update(limit: 3)
    #expect(limiter.limit == 3 && limiter.inUse == 2)
  }
}
