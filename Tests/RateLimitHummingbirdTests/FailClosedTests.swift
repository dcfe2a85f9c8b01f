#if Hummingbird
  import Foundation
  import HTTPTypes
  import Hummingbird
  import HummingbirdTesting
  import MetricsTestKit
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import Testing

  #if Postgres
    import PostgresNIO
    import RateLimitPostgres
  #endif

  /// A store answered by `.deny` on every request, as a `PostgresRateLimiter` under `.deny` with its database
  /// away: refused, `remaining` 0, no `retryAfter`, `isFallback`, `t` a whole window.
  struct DeniedLimiter: SharedKeyedLimiter {
    static let decision = RateLimitDecision(
      isGranted: false, limit: 10, window: .seconds(900), remaining: 0, resetAfter: .zero, retryAfter: nil,
      isFallback: true, effectiveWindow: .seconds(900))
    func tryAcquire(_ permits: Int, for key: String) async throws -> Bool { false }
    func retryAfter(_ permits: Int, for key: String) async throws -> Duration? { nil }
    func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision { Self.decision }
  }

  /// SPEC 4.3.1, "Fail closed is not a quota", and 4.1.1's 503 with `.problemDetails`: through Hummingbird's
  /// router and a live server on a loopback port.
  @Suite struct HummingbirdFailClosedTests {
    static let reducedCapacity = "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity"

    /// The problem details of a response body, parsed.
    static func problem(_ body: ByteBuffer) -> [String: Any]? {
      try? JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8)) as? [String: Any]
    }

    /// A request refused only by a policy under `.deny` that could not reach its store: 503, `Retry-After: 1`, no
    /// fields, the other policy's grant taken back, counted `unavailable`, and with `.problemDetails` the draft's
    /// `temporary-reduced-capacity` problem type (4.3.1 answered a 429 "quota exceeded" with `r=0;t=900`).
    @Test(arguments: [false, true]) func aDenyDuringAnOutageIsA503(live: Bool) async throws {
      let metrics = ObservabilityTests.metrics
      let name = "deny-\(UInt64.random(in: 0...UInt64.max))"
      let searches = KeyedRateLimiter<String>(limit: 10, per: .seconds(10))
      let router = Router()
      router.add(
        middleware: RateLimitMiddleware(
          RateLimitPolicy("search", searches), RateLimitPolicy(name, DeniedLimiter()), refusal: .problemDetails
        ) { _, _ in "alice" })
      router.get("/") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(live ? .live : .router) { client in
        try await client.execute(uri: "/", method: .get) { response in
          #expect(response.status == .serviceUnavailable)
          #expect(response.headers[.retryAfter] == "1")
          #expect(response.headers[HTTPField.Name("RateLimit")!] == nil)
          #expect(response.headers[HTTPField.Name("RateLimit-Policy")!] == nil)
          #expect(response.headers[.contentType] == "application/problem+json")
          let problem = Self.problem(response.body)
          #expect(problem?["type"] as? String == Self.reducedCapacity)
          #expect(problem?["status"] as? Int == 503)
        }
      }
      #expect(searches.peek(1, for: "alice").remaining == 9)
      let unavailable = try metrics.expectCounter(
        "ratelimit_requests", [("policy", name), ("decision", "unavailable")])
      #expect(unavailable.totalValue == 1)
      // Made with the middleware (a fixed list's counters are), never incremented.
      let refused = try? metrics.expectCounter("ratelimit_requests", [("policy", name), ("decision", "refused")])
      #expect((refused?.totalValue ?? 0) == 0)
      let fallback = try metrics.expectCounter("ratelimit_fallback", [("policy", name)])
      #expect(fallback.totalValue == 1)
    }

    /// A lone `.deny` policy with the default text body: the 503 of a store that threw, as plain text.
    @Test(arguments: [false, true]) func aLoneDenyIsA503AsText(live: Bool) async throws {
      let router = Router()
      router.add(middleware: RateLimitMiddleware(RateLimitPolicy("shared", DeniedLimiter())) { _, _ in "alice" })
      router.get("/") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(live ? .live : .router) { client in
        try await client.execute(uri: "/", method: .get) { response in
          #expect(response.status == .serviceUnavailable)
          #expect(response.headers[.retryAfter] == "1")
          #expect(response.headers[HTTPField.Name("RateLimit")!] == nil)
          #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
          #expect(String(buffer: response.body) == "Service Unavailable\n")
        }
      }
    }

    /// SPEC 4.1.1: a store that throws (`.throwError`) with `.problemDetails` answers the draft's
    /// `temporary-reduced-capacity` problem type (4.2 and 4.3 answered `text/plain`).
    @Test(arguments: [false, true]) func aStoreThatCannotDecideAnswersProblemDetails(live: Bool) async throws {
      let router = Router()
      router.add(
        middleware: RateLimitMiddleware(RateLimitPolicy("shared", UnavailableLimiter()), refusal: .problemDetails) {
          _, _ in "alice"
        })
      router.get("/") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(live ? .live : .router) { client in
        try await client.execute(uri: "/", method: .get) { response in
          #expect(response.status == .serviceUnavailable)
          #expect(response.headers[.retryAfter] == "1")
          #expect(response.headers[.contentType] == "application/problem+json")
          #expect(
            String(buffer: response.body)
              == #"{"type":"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity","#
              + #""title":"Service Unavailable","status":503}"#)
        }
      }
    }

    #if Postgres
      /// A real `PostgresRateLimiter` under `.deny` whose database is away (nothing listens on port 1): 503.
      @Test func aPostgresLimiterUnderDenyWithItsDatabaseAwayIsA503() async throws {
        let client = PostgresClient(
          configuration: .init(
            host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable))
        let limiter = PostgresRateLimiter(
          client: client, name: "deny", limit: 10, per: .seconds(900), whenUnavailable: .deny,
          timeout: .milliseconds(50))
        let router = Router()
        router.add(
          middleware: RateLimitMiddleware(RateLimitPolicy("shared", limiter), refusal: .problemDetails) { _, _ in
            "alice"
          })
        router.get("/") { _, _ in "ok" }
        try await Application(router: router).test(.router) { client in
          try await client.execute(uri: "/", method: .get) { response in
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.retryAfter] == "1")
            #expect(response.headers[HTTPField.Name("RateLimit")!] == nil)
            #expect(Self.problem(response.body)?["type"] as? String == Self.reducedCapacity)
          }
        }
      }
    #endif
  }
#endif
