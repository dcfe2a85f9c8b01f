#if Vapor
  import Foundation
  import RateLimit
  import RateLimitHTTP
  import RateLimitVapor
  import Testing
  import Vapor
  import VaporTesting

  /// SPEC 4.3.1, "Fail closed is not a quota", and 4.1.1's 503 with `.problemDetails`: through Vapor's own test
  /// library and a live server on a loopback port.
  @Suite struct VaporFailClosedTests {
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

    struct StoreAway: Error {}
    struct UnavailableLimiter: SharedKeyedLimiter {
      func tryAcquire(_ permits: Int, for key: String) async throws -> Bool { throw StoreAway() }
      func retryAfter(_ permits: Int, for key: String) async throws -> Duration? { throw StoreAway() }
      func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision { throw StoreAway() }
    }

    static let body =
      #"{"type":"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity","#
      + #""title":"Service Unavailable","status":503}"#

    /// The app's tester: in memory, or a live server on a loopback port hit by Vapor's HTTP client.
    static func tester(_ app: Application, live: Bool) throws -> any TestingApplicationTester {
      guard live else { return try app.testing() }
      app.http.server.configuration.port = 0
      return try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
    }

    /// Refused only by `.deny`: 503, `Retry-After: 1`, no fields, the other grant taken back, and the draft's
    /// `temporary-reduced-capacity` problem type (4.3 answered a 429 "quota exceeded" with `r=0;t=900`).
    @Test(arguments: [false, true]) func aDenyDuringAnOutageIsA503(live: Bool) async throws {
      let searches = KeyedRateLimiter<String>(limit: 10, per: .seconds(10))
      try await withApp { app in
        app.grouped(
          RateLimitMiddleware(
            RateLimitPolicy("search", searches), RateLimitPolicy("shared", DeniedLimiter()), refusal: .problemDetails
          ) { _ in "alice" }
        ).get("search") { _ in "ok" }
        try await Self.tester(app, live: live).test(.GET, "search") { response async in
          #expect(response.status == .serviceUnavailable)
          #expect(response.headers.first(name: "Retry-After") == "1")
          #expect(response.headers.first(name: "RateLimit") == nil)
          #expect(response.headers.first(name: "RateLimit-Policy") == nil)
          #expect(response.headers.first(name: "Content-Type") == "application/problem+json")
          #expect(response.body.string == Self.body)
        }
      }
      #expect(searches.peek(1, for: "alice").remaining == 9)
    }

    /// A store that throws (`.throwError`) with `.problemDetails`: the same problem type (4.2 answered
    /// `text/plain`); with `.text`, plain text as before.
    @Test(arguments: [false, true]) func aStoreThatCannotDecideAnswersProblemDetails(live: Bool) async throws {
      try await withApp { app in
        app.grouped(
          RateLimitMiddleware(RateLimitPolicy("shared", UnavailableLimiter()), refusal: .problemDetails) { _ in "a" }
        )
        .get("details") { _ in "ok" }
        app.grouped(RateLimitMiddleware(RateLimitPolicy("shared", DeniedLimiter())) { _ in "a" }).get("text") { _ in
          "ok"
        }
        let tester = try Self.tester(app, live: live)
        try await tester.test(.GET, "details") { response async in
          #expect(response.status == .serviceUnavailable)
          #expect(response.headers.first(name: "Retry-After") == "1")
          #expect(response.headers.first(name: "Content-Type") == "application/problem+json")
          #expect(response.body.string == Self.body)
        }
        try await tester.test(.GET, "text") { response async in
          #expect(response.status == .serviceUnavailable)
          #expect(response.headers.first(name: "Retry-After") == "1")
          #expect(response.headers.first(name: "Content-Type") == "text/plain; charset=utf-8")
          #expect(response.body.string == "Service Unavailable\n")
        }
      }
    }
  }
#endif
