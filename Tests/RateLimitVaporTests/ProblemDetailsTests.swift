#if Vapor
  import RateLimit
  import RateLimitHTTP
  import RateLimitVapor
  import Testing
  import Vapor
  import VaporTesting

  /// SPEC 4.2: `refusal: .problemDetails` through Vapor's own test library.
  @Suite struct VaporProblemDetailsTests {
    @Test func aRefusalAnswersProblemDetails() async throws {
      let logins = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: ManualClock())
      try await withApp { app in
        app.grouped(
          RateLimitMiddleware(RateLimitPolicy("login", logins), refusal: .problemDetails) {
            $0.headers.first(name: "X-User")
          }
        ).get("login") { _ in "ok" }
        let tester = try app.testing()
        try await tester.test(.GET, "login", headers: ["X-User": "a"]) { response async in
          #expect(response.status == .ok)
        }
        try await tester.test(.GET, "login", headers: ["X-User": "a"]) { response async in
          #expect(response.status == .tooManyRequests)
          #expect(response.headers.first(name: "Content-Type") == "application/problem+json")
          #expect(response.headers.first(name: "Retry-After") == "60")
          #expect(
            response.body.string
              == #"{"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","title":"Too Many Requests","#
              + #""status":429,"violated-policies":["login"]}"#)
        }
      }
    }
  }
#endif
