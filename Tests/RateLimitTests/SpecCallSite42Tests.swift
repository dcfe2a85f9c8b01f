import RateLimit
import Testing

/// SPEC 4.2's call sites that are in process, compiled as written (the model stands in for an app's own).
@Suite struct SpecCallSite42Tests {
  struct Model {
    func complete(_ prompt: String) async throws -> Int { prompt.count * 100 }
  }

  @Test func supportUnlocksAClient() {
    let logins = KeyedRateLimiter<String>(limit: 5, per: .seconds(900))
    let userAddress = "203.0.113.7"
    for _ in 0..<5 { _ = logins.tryAcquire(for: userAddress) }
    #expect(!logins.tryAcquire(for: userAddress))
    logins.reset(userAddress)  // support unlocks a client
    #expect(logins.tryAcquire(for: userAddress))
  }

  @Test(arguments: [40, 400])
  func anLLMGatewaySettlesWithTheTokensReallyUsed(estimate: Int) async throws {
    let tokens = KeyedRateLimiter<String>(limit: 100_000, per: .seconds(60))
    let model = Model()
    let (team, prompt) = ("red", "a prompt")
    try await tokens.acquire(estimate, for: team)
    let used = try await model.complete(prompt)
    if used > estimate { tokens.charge(used - estimate, for: team) } else { tokens.refund(estimate - used, for: team) }
    // Whatever the estimate, the team has taken what it used.
    #expect(tokens.peek(for: team).remaining == 100_000 - 800 - 1)
  }

  @Test func anOperableLimiterThroughTheProtocol() async throws {
    let limiter: any OperableKeyedLimiter = KeyedRateLimiter<String>(limit: 2, per: .seconds(60))
    #expect(try await limiter.peek(1, for: "k").remaining == 1)
    #expect(try await limiter.charge(2, for: "k").remaining == 0)
    #expect(try await limiter.refund(1, for: "k").remaining == 1)
    try await limiter.block("k", for: .seconds(10))
    #expect(try await !limiter.tryAcquire(1, for: "k"))
    try await limiter.reset("k")
    #expect(try await limiter.tryAcquire(2, for: "k"))
  }
}
