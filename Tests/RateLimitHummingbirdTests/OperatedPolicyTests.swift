#if Hummingbird
  import HTTPTypes
  import Hummingbird
  import HummingbirdTesting
  import Logging
  import MetricsTestKit
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import Testing

  /// SPEC 4.2, "The middleware: the rules added": `counting`, `.shadow` and `penalty`, through Hummingbird's test
  /// library and a live server on a loopback port.
  @Suite struct HummingbirdOperatedPolicyTests {
    /// A login route: 200 when the password is right, 401 otherwise; a route that throws 403.
    static func loginRouter(_ middleware: RateLimitMiddleware<AddressContext>) -> Router<AddressContext> {
      let router = Router(context: AddressContext.self)
      router.group("login")
        .add(middleware: middleware)
        .post { request, _ -> Response in
          if request.uri.queryParameters["password"] == "right" { return Response(status: .ok) }
          if request.uri.queryParameters["password"] == "throw" { throw HTTPError(.forbidden) }
          return Response(status: .unauthorized)
        }
      return router
    }

    /// Five failed logins, then 429; a successful login in between costs nothing (checked through `peek`).
    @Test(arguments: [false, true])
    func onlyFailuresCount(live: Bool) async throws {
      let logins = KeyedRateLimiter<String>(limit: 5, per: .seconds(900), clock: ManualClock())
      let router = Self.loginRouter(
        RateLimitMiddleware(RateLimitPolicy("login", logins, counting: .failures)) { _, _ in "client" })
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(live ? .live : .router) { client in
        func login(_ password: String) async throws -> (Int, String?) {
          try await client.execute(uri: "/login?password=\(password)", method: .post) {
            ($0.status.code, $0.headers[HTTPField.Name("RateLimit")!])
          }
        }
        for attempt in 1...4 {
          let (status, field) = try await login("wrong")
          #expect(status == 401)
          // The fields describe the key as decided: this request's permit included.
          #expect(field == #""login";r=\#(5 - attempt);t=900"#)
        }
        let (status, _) = try await login("right")
        #expect(status == 200)
        #expect(logins.peek(1, for: "client").remaining == 0)  // 4 taken: the success gave its permit back
        let thrown = try await login("throw")  // 403: a failure, counted
        #expect(thrown.0 == 403)
        let refused = try await login("right")
        #expect(refused.0 == 429)
      }
      #expect(!logins.peek(1, for: "client").isGranted)
    }

    @Test func onlySuccessesCountAndWhen() async throws {
      let successes = KeyedRateLimiter<String>(limit: 5, per: .seconds(60))
      let odd = KeyedRateLimiter<String>(limit: 5, per: .seconds(60))
      let router = Self.loginRouter(
        RateLimitMiddleware(
          RateLimitPolicy("ok", successes, counting: .successes),
          RateLimitPolicy("odd", odd, counting: .when { $0 == 401 })
        ) { _, _ in "client" })
      let app = Application(router: router)
      try await app.test(.router) { client in
        try await client.execute(uri: "/login?password=right", method: .post) { #expect($0.status == .ok) }
        try await client.execute(uri: "/login?password=wrong", method: .post) { #expect($0.status == .unauthorized) }
        try await client.execute(uri: "/login?password=throw", method: .post) { #expect($0.status == .forbidden) }
      }
      #expect(successes.peek(1, for: "client").remaining == 3)  // the 200 kept
      #expect(odd.peek(1, for: "client").remaining == 3)  // the 401 kept
    }

    /// A refusal by the rule blocks the key for the penalty, which outlives the window; refusals during the block
    /// do not extend it; its `Retry-After` is the block's end.
    @Test func aPenaltyOutlivesTheWindow() async throws {
      let clock = ManualClock()
      let logins = KeyedRateLimiter<String>(limit: 2, per: .seconds(60), clock: clock)
      let router = Self.loginRouter(
        RateLimitMiddleware(RateLimitPolicy("login", logins, penalty: .seconds(3_600))) { _, _ in "client" })
      let app = Application(router: router)
      try await app.test(.router) { client in
        func login() async throws -> (Int, String?) {
          try await client.execute(uri: "/login?password=wrong", method: .post) {
            ($0.status.code, $0.headers[.retryAfter])
          }
        }
        #expect(try await login().0 == 401)
        #expect(try await login().0 == 401)
        let refused = try await login()
        #expect(refused.0 == 429 && refused.1 == "3600")
        clock.advance(by: .seconds(600))
        let during = try await login()
        #expect(during.0 == 429 && during.1 == "3000")  // not extended
        clock.advance(by: .seconds(2_999))
        #expect(try await login().1 == "1")
        clock.advance(by: .seconds(1))
        #expect(try await login().0 == 401)
      }
    }

    /// A shadow policy is decided and counted, never refuses, is not in the fields; an enforced refusal takes its
    /// grant back.
    @Test func aShadowPolicyNeverRefuses() async throws {
      let metrics = ObservabilityTests.metrics
      let name = "trial-\(UInt64.random(in: 0...UInt64.max))"
      let trial = KeyedRateLimiter<String>(limit: 2, per: .seconds(60))
      let enforced = KeyedRateLimiter<String>(limit: 4, per: .seconds(60))
      let router = Router(context: AddressContext.self)
      router.add(
        middleware: RateLimitMiddleware(
          RateLimitPolicy("api", enforced), RateLimitPolicy(name, trial, mode: .shadow)
        ) { _, _ in "client" })
      router.get("/") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(.live) { client in
        for request in 1...5 {
          try await client.execute(uri: "/", method: .get) { response in
            #expect(response.status == (request <= 4 ? .ok : .tooManyRequests))
            let policyField = response.headers[HTTPField.Name("RateLimit-Policy")!]
            #expect(policyField == #""api";q=4;w=60"#)
          }
        }
      }
      let shadowRefused = try metrics.expectCounter(
        "ratelimit_requests", [("policy", name), ("decision", "shadow_refused")])
      let granted = try metrics.expectCounter("ratelimit_requests", [("policy", name), ("decision", "granted")])
      // Requests 3 and 4; request 5, refused by "api", does not decide the shadow policy (SPEC 4.3.1; 4.2 counted 3).
      #expect(shadowRefused.totalValue == 2)
      #expect(granted.totalValue == 2)
      #expect(trial.peek(1, for: "client").remaining == 0 && !trial.peek(1, for: "client").isGranted)
      #expect(enforced.peek(1, for: "client").isGranted == false)
    }

    /// SPEC 4.3.1, "Fields tell what was decided": a response whose permits `counting` gives back reports `r` after
    /// the give-back (`r` + the permits, at most `q`); a response that keeps them, `r` as decided.
    @Test(arguments: [false, true])
    func aGivenBackResponseReportsRemainingAfterTheGiveBack(live: Bool) async throws {
      let logins = KeyedRateLimiter<String>(limit: 5, per: .seconds(900), clock: ManualClock())
      let costly = KeyedRateLimiter<String>(limit: 5, per: .seconds(900), clock: ManualClock())
      let router = Router(context: AddressContext.self)
      router.group("login")
        .add(
          middleware: RateLimitMiddleware(RateLimitPolicy("login", logins, counting: .failures)) { _, _ in "client" }
        )
        .post { request, _ -> Response in
          Response(status: request.uri.queryParameters["password"] == "right" ? .ok : .unauthorized)
        }
      router.group("export")
        .add(
          middleware: RateLimitMiddleware(RateLimitPolicy("export", costly, permits: 2, counting: .failures)) { _, _ in
            "client"
          }
        )
        .post { _, _ in Response(status: .ok) }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(live ? .live : .router) { client in
        func post(_ uri: String) async throws -> String {
          try await client.execute(uri: uri, method: .post) {
            "\($0.status.code) \($0.headers[HTTPField.Name("RateLimit")!] ?? "-")"
          }
        }
        let success = try await post("/login?password=right")
        #expect(success == #"200 "login";r=5;t=900"#)
        let failure1 = try await post("/login?password=wrong")
        #expect(failure1 == #"401 "login";r=4;t=900"#)
        let failure2 = try await post("/login?password=wrong")
        #expect(failure2 == #"401 "login";r=3;t=900"#)
        let again = try await post("/login?password=right")
        #expect(again == #"200 "login";r=3;t=900"#)
        let export = try await post("/export")
        #expect(export == #"200 "export";r=5;t=900"#)
      }
      #expect(logins.peek(1, for: "client").remaining == 2)
    }

    /// SPEC 4.3.1, "Outages are visible": single refusals stay at `debug`, a shadow policy's included (4.2 logged
    /// every shadow refusal at `info`).
    @Test func aShadowRefusalIsLoggedAtDebug() async throws {
      let records = RecordedLogs()
      var logger = Logger(label: "test") { _ in RecordingHandler(records: records) }
      logger.logLevel = .trace
      let router = Router()
      router.add(
        middleware: RateLimitMiddleware(
          RateLimitPolicy("api", KeyedRateLimiter<String>(limit: 10, per: .seconds(60))),
          RateLimitPolicy("trial", KeyedRateLimiter<String>(limit: 1, per: .seconds(60)), mode: .shadow)
        ) { _, _ in "client" })
      router.get("/") { _, _ in "ok" }
      try await Application(router: router, logger: logger).test(.router) { client in
        for _ in 0..<3 { try await client.execute(uri: "/", method: .get) { #expect($0.status == .ok) } }
      }
      let lines = records.entries.filter { $0.message == "shadow rate limit policies would have refused" }
      #expect(lines.count == 2)
      #expect(lines.allSatisfy { $0.level == .debug }, "\(lines.map(\.level))")
    }

    /// An `update` shows in the next response's fields: the middleware's fast path does not keep a stale quota.
    @Test func anUpdatedLimiterAdvertisesItsNewQuota() async throws {
      let limiter = KeyedRateLimiter<String>(limit: 5, per: .seconds(60), clock: ManualClock())
      let router = Router()
      router.add(middleware: RateLimitMiddleware(RateLimitPolicy("api", limiter)) { _, _ in "client" })
      router.get("/") { _, _ in "ok" }
      let app = Application(router: router)
      try await app.test(.router) { client in
        try await client.execute(uri: "/", method: .get) { response in
          #expect(response.headers[HTTPField.Name("RateLimit-Policy")!] == #""api";q=5;w=60"#)
        }
        limiter.update(limit: 10, per: .seconds(60))
        try await client.execute(uri: "/", method: .get) { response in
          #expect(response.headers[HTTPField.Name("RateLimit-Policy")!] == #""api";q=10;w=60"#)
          #expect(response.headers[HTTPField.Name("RateLimit")!] == #""api";r=8;t=60"#)
        }
      }
    }
  }
#endif
