#if Vapor
  import RateLimit
  import RateLimitHTTP
  import RateLimitVapor
  import Testing
  import Vapor
  import VaporTesting

  /// SPEC 4.2: `RateLimitMiddleware(select:)` through Vapor's own test library.
  @Suite struct VaporSelectTests {
    @Test func plansChosenPerRequest() async throws {
      let free = RateLimitPolicy("free", KeyedRateLimiter<String>(limit: 6, per: .seconds(60)))
      let pro = RateLimitPolicy("pro", KeyedRateLimiter<String>(limit: 100, per: .seconds(60)))
      try await withApp { app in
        app.grouped(
          RateLimitMiddleware { request in
            guard let user = request.headers.first(name: "X-User") else { return .exempt }
            let plan = request.headers.first(name: "X-Plan") == "pro" ? pro : free
            return .limit(user, request.url.path.hasPrefix("/export") ? plan.permits(5) : plan)
          }
        ).get("export") { _ in "ok" }
        let tester = try app.testing()
        try await tester.test(.GET, "export", headers: ["X-User": "alice"]) { response async in
          #expect(response.status == .ok)
          #expect(response.headers.first(name: "RateLimit") == #""free";r=1;t=60"#)
        }
        try await tester.test(.GET, "export", headers: ["X-User": "alice"]) { response async in
          #expect(response.status == .tooManyRequests)
        }
        try await tester.test(.GET, "export", headers: ["X-User": "bob", "X-Plan": "pro"]) { response async in
          #expect(response.headers.first(name: "RateLimit") == #""pro";r=95;t=60"#)
        }
        try await tester.test(.GET, "export") { response async in
          #expect(response.status == .ok)
          #expect(response.headers.first(name: "RateLimit") == nil)
        }
      }
    }
  }
#endif
