#if Vapor
  import RateLimit
  import RateLimitHTTP
  import RateLimitVapor
  import Testing
  import Vapor
  import VaporTesting

  /// SPEC 4.2: `counting`, `.shadow` and `penalty` through Vapor's own test library.
  @Suite struct VaporOperatedPolicyTests {
    /// A login route: 200 with the right password, 401 otherwise, an `Abort(.forbidden)` thrown for "throw".
    static func addLogin(_ app: Application, _ middleware: RateLimitMiddleware) {
      app.grouped(middleware).post("login") { request -> Response in
        let password = try? request.query.get(String.self, at: "password")
        if password == "right" { return Response(status: .ok) }
        if password == "throw" { throw Abort(.forbidden) }
        return Response(status: .unauthorized)
      }
    }

    @Test func onlyFailuresCount() async throws {
      let logins = KeyedRateLimiter<String>(limit: 3, per: .seconds(900))
      try await withApp { app in
        Self.addLogin(app, RateLimitMiddleware(RateLimitPolicy("login", logins, counting: .failures)) { _ in "c" })
        let tester = try app.testing()
        for password in ["wrong", "right", "right", "throw", "right"] {
          try await tester.test(.POST, "login?password=\(password)") { response async in
            #expect(response.status != .tooManyRequests)
          }
        }
        #expect(logins.peek(1, for: "c").remaining == 0)  // two failures kept, one to go
        try await tester.test(.POST, "login?password=wrong") { response async in
          #expect(response.status == .unauthorized)
        }
        try await tester.test(.POST, "login?password=right") { response async in
          #expect(response.status == .tooManyRequests)
        }
      }
    }

    /// SPEC 4.3.1, "Fields tell what was decided": a response whose permits `counting` gives back reports `r` after
    /// the give-back (`r` + the permits, at most `q`); one that keeps them, `r` as decided. In memory and live.
    @Test(arguments: [false, true])
    func aGivenBackResponseReportsRemainingAfterTheGiveBack(live: Bool) async throws {
      let logins = KeyedRateLimiter<String>(limit: 5, per: .seconds(900), clock: ManualClock())
      try await withApp { app in
        Self.addLogin(app, RateLimitMiddleware(RateLimitPolicy("login", logins, counting: .failures)) { _ in "c" })
        let tester: any TestingApplicationTester
        if live {
          app.http.server.configuration.port = 0
          tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
        } else {
          tester = try app.testing()
        }
        for (password, expected) in [
          ("right", #""login";r=5;t=900"#), ("wrong", #""login";r=4;t=900"#), ("wrong", #""login";r=3;t=900"#),
          ("right", #""login";r=3;t=900"#),
        ] {
          try await tester.test(.POST, "login?password=\(password)") { response async in
            #expect(response.headers.first(name: "RateLimit") == expected, "\(password)")
          }
        }
      }
      #expect(logins.peek(1, for: "c").remaining == 2)
    }

    @Test func aPenaltyAndAShadowPolicy() async throws {
      let clock = ManualClock()
      let logins = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: clock)
      let trial = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: clock)
      try await withApp { app in
        Self.addLogin(
          app,
          RateLimitMiddleware(
            RateLimitPolicy("login", logins, penalty: .seconds(600)),
            RateLimitPolicy("trial", trial, mode: .shadow)
          ) { _ in "c" })
        let tester = try app.testing()
        try await tester.test(.POST, "login?password=wrong") { response async in
          #expect(response.status == .unauthorized)
          #expect(response.headers.first(name: "RateLimit-Policy") == #""login";q=1;w=60"#)
        }
        try await tester.test(.POST, "login?password=wrong") { response async in
          #expect(response.status == .tooManyRequests)
          #expect(response.headers.first(name: "Retry-After") == "600")
        }
        // The first request's shadow grant is kept (that request was granted).
        #expect(!trial.peek(1, for: "c").isGranted)
        clock.advance(by: .seconds(120))
        try await tester.test(.POST, "login?password=wrong") { response async in
          #expect(response.status == .tooManyRequests)
          #expect(response.headers.first(name: "Retry-After") == "480")
        }
      }
      // The third request, refused by "login", never decided its shadow policy (SPEC 4.3.1; 4.2 took its grant back).
      #expect(trial.peek(1, for: "c").isGranted)
    }
  }
#endif
