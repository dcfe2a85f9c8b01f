#if Hummingbird && Postgres
  import HTTPTypes
  import Hummingbird
  import PostgresNIO
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import RateLimitPostgres
  import Testing

  /// The SPEC's 4.1 call sites, compiled as written (Vapor's in RateLimitVaporTests).
  @Suite struct SpecCallSite41Tests {
    @Test func theHummingbirdAndAnywhereCallSitesCompileAndMeanWhatTheySay() async throws {
      let client = PostgresClient(
        configuration: .init(
          host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable))
      let router = Router(context: AddressContext.self)
      // Hummingbird: 10 searches per 10 s per API key; uploads 1 per second and 100 per day per client address.
      let searches = KeyedRateLimiter<String>(limit: 10, per: .seconds(10))
      router.group("search")
        .add(
          middleware: RateLimitMiddleware(RateLimitPolicy("search", searches)) { request, _ in
            request.headers[HTTPField.Name("X-Api-Key")!]
          })
      let perSecond = PostgresRateLimiter(client: client, name: "upload-s", limit: 1, per: .seconds(1))
      let perDay = PostgresRateLimiter(client: client, name: "upload-d", limit: 100, per: .seconds(86_400))
      router.group("upload")
        .add(
          middleware: RateLimitMiddleware(
            RateLimitPolicy("burst", perSecond), RateLimitPolicy("daily", perDay),
            trustedProxies: 1))
      // Anywhere
      let d = searches.decide(for: "alice")
      if !d.isGranted { print("retry in", d.retryAfter ?? .zero, "- remaining", d.remaining) }
      #expect(d.isGranted && d.remaining == 9 && d.limit == 10 && d.window == .seconds(10))
      #expect(d.resetAfter == .seconds(10) && d.retryAfter == nil && !d.isFallback)
    }
  }
#endif
