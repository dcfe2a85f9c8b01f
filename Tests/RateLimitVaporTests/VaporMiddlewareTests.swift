#if Vapor
  import RateLimit
  import RateLimitHTTP
  import RateLimitVapor
  import Testing
  import Vapor
  import VaporTesting

  @Suite struct VaporMiddlewareTests {
    @Test func keyedByAHeaderInMemory() async throws {
      let clock = ManualClock()
      let searches = KeyedRateLimiter<String>(limit: 2, per: .seconds(10), clock: clock)
      try await withApp { app in
        app.grouped(RateLimitMiddleware(RateLimitPolicy(#"se"arch"#, searches)) { $0.headers.first(name: "X-Api-Key") })
          .get("search") { _ in "ok" }
        let tester = try app.testing()
        for remaining in [1, 0] {
          try await tester.test(.GET, "search", headers: ["X-Api-Key": "alice"]) { response async in
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "RateLimit-Policy") == #""se\"arch";q=2;w=10"#)
            #expect(response.headers.first(name: "RateLimit") == "\"se\\\"arch\";r=\(remaining);t=10")
          }
        }
        clock.advance(by: .milliseconds(2_500))
        try await tester.test(.GET, "search", headers: ["X-Api-Key": "alice"]) { response async in
          #expect(response.status == .tooManyRequests)
          #expect(response.headers.first(name: "Retry-After") == "8")
          #expect(response.body.string == "Too Many Requests\n")
        }
        try await tester.test(.GET, "search") { response async in
          #expect(response.status == .ok)
          #expect(response.headers.first(name: "RateLimit") == nil)
        }
        try await tester.test(.GET, "search", headers: ["X-Api-Key": String(repeating: "x", count: 1_025)]) {
          response async in
          #expect(response.status == .badRequest)
        }
      }
    }

    /// SPEC 4.1.1: a limiter that throws while deciding is answered 503 with `Retry-After: 1`, no RateLimit
    /// fields, and the request's other grants taken back (4.1 answered a bare 500).
    @Test func aStoreThatCannotDecideIsA503() async throws {
      struct StoreAway: Error {}
      struct UnavailableLimiter: SharedKeyedLimiter {
        func tryAcquire(_ permits: Int, for key: String) async throws -> Bool { throw StoreAway() }
        func retryAfter(_ permits: Int, for key: String) async throws -> Duration? { throw StoreAway() }
        func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision { throw StoreAway() }
      }
      let searches = KeyedRateLimiter<String>(limit: 10, per: .seconds(10))
      try await withApp { app in
        app.grouped(
          RateLimitMiddleware(RateLimitPolicy("search", searches), RateLimitPolicy("shared", UnavailableLimiter())) {
            $0.headers.first(name: "X-Api-Key")
          }
        ).get("search") { _ in "ok" }
        try await app.testing().test(.GET, "search", headers: ["X-Api-Key": "alice"]) { response async in
          #expect(response.status == .serviceUnavailable)
          #expect(response.headers.first(name: "Retry-After") == "1")
          #expect(response.headers.first(name: "RateLimit") == nil)
          #expect(response.body.string == "Service Unavailable\n")
        }
      }
      #expect(searches.decide(for: "alice").remaining == 9)
    }

    @Test func theSpecCallSiteCompiles() async throws {
      let searches = KeyedRateLimiter<String>(limit: 10, per: .seconds(10))
      try await withApp { app in
        app.grouped(RateLimitMiddleware(RateLimitPolicy("api", searches), trustedProxies: 1)).get("search") { _ in "ok"
        }
        #expect(app.routes.all.count == 1)
      }
    }

    @Test func aLiveServerKeyedByThePeerNotByVaporsPeerAddress() async throws {
      let limiter = KeyedRateLimiter<String>(limit: 2, per: .seconds(60))
      try await withApp { app in
        app.grouped(RateLimitMiddleware(RateLimitPolicy("api", limiter), trustedProxies: 0)).get("search") { _ in "ok" }
        app.http.server.configuration.port = 0
        let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
        var statuses: [HTTPStatus] = []
        for spoof in ["1.1.1.1", "2.2.2.2", "3.3.3.3"] {
          try await tester.test(.GET, "search", headers: ["X-Forwarded-For": spoof]) { response async in
            statuses.append(response.status)
          }
        }
        #expect(statuses == [.ok, .ok, .tooManyRequests])
      }
      #expect(limiter.count == 1)
      #expect(!limiter.tryAcquire(for: "127.0.0.1"), "the key is the peer's address, as `clientKey` spells it")
    }
  }
#endif
