#if Hummingbird && Postgres
  import Hummingbird
  import PostgresNIO
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import RateLimitPostgres
  import Testing

  /// SPEC 4.2's call sites, as written there (`user` is an app's own request context property: here a context
  /// of the test's own). They must compile; the parts that need no database run.
  @Suite struct SpecCallSite42Tests {
    struct User: Sendable {
      let id: String
      let isStaff: Bool
      let isPro: Bool
    }

    struct PlanContext: RequestContext, RemoteAddressRequestContext {
      var coreContext: CoreRequestContextStorage
      var remoteAddress: SocketAddress? { nil }
      var user: User? { nil }
      init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
    }

    /// The SPEC's block, compiled as written.
    static func callSites(
      client: PostgresClient, router: Router<PlanContext>, userAddress: String, estimate: Int, team: String,
      complete: @Sendable (String) async throws -> Int, prompt: String
    ) async throws {
      // Plans: anonymous clients by address, signed-in users by id, staff not limited; an expensive route costs 5.
      let anonymous = RateLimitPolicy("anon", KeyedRateLimiter<String>(limit: 60, per: .seconds(60)))
      let free = RateLimitPolicy("free", KeyedRateLimiter<String>(limit: 300, per: .seconds(60)))
      let proLimit = PostgresRateLimiter(client: client, name: "pro", limit: 3_000, per: .seconds(60))
      let pro = RateLimitPolicy("pro", proLimit)
      let office = AddressRange("10.20.0.0/16")!
      router.add(
        middleware: RateLimitMiddleware { request, context in
          guard let user = context.user else {
            let address = context.remoteAddress?.ipAddress ?? ""
            return office.contains(address) ? .exempt : .limit(clientKey(address: address) ?? address, anonymous)
          }
          if user.isStaff { return .exempt }
          let plan = user.isPro ? pro : free
          return .limit(user.id, request.uri.path.hasPrefix("/export") ? plan.permits(5) : plan)
        })
      // Logins: 5 failed attempts per 15 minutes per address, then blocked for an hour; a success costs nothing.
      let logins = KeyedRateLimiter<String>(limit: 5, per: .seconds(900))
      router.group("login").add(
        middleware: RateLimitMiddleware(
          RateLimitPolicy("login", logins, counting: .failures, penalty: .seconds(3_600))))
      logins.reset(userAddress)  // support unlocks a client
      // A new limit tried on live traffic before it refuses anyone.
      let trial = RateLimitPolicy("burst", KeyedRateLimiter<String>(limit: 20, per: .seconds(1)), mode: .shadow)
      _ = trial
      // An LLM gateway: take an estimate before the call, settle with the tokens really used.
      let tokens = KeyedRateLimiter<String>(limit: 100_000, per: .seconds(60))
      try await tokens.acquire(estimate, for: team)
      let used = try await complete(prompt)
      if used > estimate {
        tokens.charge(used - estimate, for: team)
      } else {
        tokens.refund(estimate - used, for: team)
      }
      // The fleet's "pro" limit raised at once, keeping every key's state (then deploy the new parameters).
      try await proLimit.update(limit: 6_000, per: .seconds(60))
    }

    @Test func theLoginAndTokenCallSitesMeanWhatTheySay() async throws {
      let logins = KeyedRateLimiter<String>(limit: 5, per: .seconds(900))
      for _ in 0..<5 { #expect(logins.tryAcquire(for: "10.0.0.1")) }
      #expect(!logins.tryAcquire(for: "10.0.0.1"))
      logins.reset("10.0.0.1")
      #expect(logins.tryAcquire(for: "10.0.0.1"))
      let tokens = KeyedRateLimiter<String>(limit: 100_000, per: .seconds(60))
      try await tokens.acquire(1_000, for: "team")
      tokens.refund(400, for: "team")
      #expect(tokens.peek(1, for: "team").remaining == 100_000 - 600 - 1)
      tokens.charge(900, for: "team")
      #expect(tokens.peek(1, for: "team").remaining == 100_000 - 1_500 - 1)
    }
  }
#endif
