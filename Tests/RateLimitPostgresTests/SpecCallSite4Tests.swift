#if Postgres
  import PostgresNIO
  import RateLimit
  import RateLimitPostgres
  import Testing

  /// SPEC 4.0's call sites, compiled as written there, and run against the test server.
  @Suite struct SpecCallSite4Tests {
    struct Request: Sendable {}

    func handle(_ request: Request) async throws {}
    func reject(retryAfter: Duration?) {}

    @Test func threeInstancesOneLimitAndAPartnerAPI() async throws {
      guard let config = TestDatabase.configuration() else { return }
      let request = Request()
      let clientID = TestDatabase.uniqueName()
      // Three instances of one server, one limit: 100 requests per minute per client, bursts of 20.
      let client = PostgresClient(configuration: config)  // PostgresNIO; run it with `await client.run()`
      let running = Task { await client.run() }
      defer { running.cancel() }
      let perClient = PostgresRateLimiter(
        client: client, name: "api", limit: 100, per: .seconds(60), burst: 20,
        whenUnavailable: .fallback(KeyedRateLimiter(limit: 34, per: .seconds(60))))
      try await perClient.prepare()
      if try await perClient.tryAcquire(for: clientID) {
        try await handle(request)
      } else {
        reject(retryAfter: try await perClient.retryAfter(for: clientID))
      }

      // Every instance's calls to a partner API together stay within 10 per second; callers wait up to 2 s.
      let partner = PostgresRateLimiter(client: client, name: "partner-api", limit: 10, per: .seconds(1))
      try await partner.acquire(for: "partner", within: .seconds(2))

      #expect(perClient.name == "api" && perClient.limit == 100 && perClient.burst == 20)
      #expect(partner.window == .seconds(1) && partner.burst == nil)
      #expect(try await perClient.retryAfter(20, for: clientID) != nil)
      #expect(try await perClient.retryAfter(21, for: clientID) == nil)
    }
  }
#endif
