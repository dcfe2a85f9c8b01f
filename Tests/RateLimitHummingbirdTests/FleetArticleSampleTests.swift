#if Hummingbird && Postgres
  import Hummingbird
  import PostgresNIO
  import RateLimit
  import RateLimitPostgres
  import Testing

  /// The fleet article's Hummingbird sample ("One limit across a fleet"), compiled as written: the client is one
  /// of the application's services, and the limiter prepares before the server starts.
  @Suite struct FleetArticleSampleTests {
    @Test func theHummingbirdServicesSampleCompiles() async throws {
      let client = PostgresClient(
        configuration: .init(
          host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable))
      let perClient = PostgresRateLimiter(client: client, name: "api", limit: 100, per: .seconds(60))
      let router = Router()
      var app = Application(router: router)
      app.addServices(client)
      app.beforeServerStarts { try await perClient.prepare() }
      // Not run (`try await app.runService()`): nothing listens on port 1.
      #expect(perClient.name == "api")
    }
  }
#endif
