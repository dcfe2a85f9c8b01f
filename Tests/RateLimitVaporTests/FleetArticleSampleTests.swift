#if Vapor && Postgres
  import PostgresNIO
  import RateLimit
  import RateLimitPostgres
  import Testing
  import Vapor
  import VaporTesting

  /// The fleet article's Vapor sample ("One limit across a fleet"), compiled as written: the client runs from a
  /// lifecycle handler, and the limiter prepares once the application has booted.
  struct PostgresLifecycle: LifecycleHandler {
    let limiter: PostgresRateLimiter
    let running: Task<Void, Never>
    init(_ client: PostgresClient, _ limiter: PostgresRateLimiter) {
      self.limiter = limiter
      self.running = Task { await client.run() }
    }
    func didBootAsync(_ application: Application) async throws {
      try await limiter.prepare()
    }
    func shutdownAsync(_ application: Application) async {
      running.cancel()
    }
  }

  @Suite struct FleetArticleSampleTests {
    @Test func theVaporLifecycleSampleCompiles() async throws {
      let client = PostgresClient(
        configuration: .init(
          host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable))
      let perClient = PostgresRateLimiter(
        client: client, name: "api", limit: 100, per: .seconds(60), burst: 20,
        whenUnavailable: .fallback(KeyedRateLimiter(limit: 34, per: .seconds(60))))
      let app = try await Application.make(.testing)
      let lifecycle = PostgresLifecycle(client, perClient)
      app.lifecycle.use(lifecycle)
      // Not booted (nothing listens on port 1): the handler's client task is cancelled here, not by a shutdown.
      try await app.asyncShutdown()
      lifecycle.running.cancel()
      await lifecycle.running.value
    }
  }
#endif
