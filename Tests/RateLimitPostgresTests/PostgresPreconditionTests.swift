#if Postgres
  import PostgresNIO
  import RateLimitPostgres
  import Testing

  /// Bad parameters trap with a message naming the parameter and the value; each case runs in its own process.
  /// (The client is never run: a precondition needs no round trip.)
  @Suite struct PostgresPreconditionTests {
    static func client() -> PostgresClient {
      PostgresClient(
        configuration: .init(host: "127.0.0.1", port: 1, username: "u", password: nil, database: nil, tls: .disable))
    }

    @Test func limitBelowOneTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = PostgresRateLimiter(client: PostgresPreconditionTests.client(), name: "n", limit: 0, per: .seconds(1))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("limit: 0"), "\(message)")
    }

    @Test func burstBelowOneTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = PostgresRateLimiter(
          client: PostgresPreconditionTests.client(), name: "n", limit: 1, per: .seconds(1), burst: -3)
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("burst: -3"), "\(message)")
    }

    @Test func negativeWindowTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = PostgresRateLimiter(client: PostgresPreconditionTests.client(), name: "n", limit: 1, per: .seconds(-1))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("window: -1.0 seconds"), "\(message)")
    }

    @Test func aNameLongerThan1024BytesTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = PostgresRateLimiter(
          client: PostgresPreconditionTests.client(), name: String(repeating: "n", count: 1_025), limit: 1,
          per: .seconds(1))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("name"), "\(message)")
    }

    @Test func permitsBelowOneTrap() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        let limiter = PostgresRateLimiter(
          client: PostgresPreconditionTests.client(), name: "n", limit: 1, per: .seconds(1))
        _ = try? await limiter.tryAcquire(0, for: "k")
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("permits: 0"), "\(message)")
    }

    @Test func negativeMaxDelayTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        let limiter = PostgresRateLimiter(
          client: PostgresPreconditionTests.client(), name: "n", limit: 1, per: .seconds(1))
        _ = try? await limiter.reserve(for: "k", within: .milliseconds(-5))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("maxDelay: -0.005 seconds"), "\(message)")
    }
  }
#endif
