#if Hummingbird
  import HTTPTypes
  import Hummingbird
  import HummingbirdTesting
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import Testing

  /// SPEC 4.2: `RateLimitMiddleware(select:)`, policies chosen per request: plans, costs and exemptions.
  @Suite struct HummingbirdSelectTests {
    static let user = HTTPField.Name("X-User")!
    static let plan = HTTPField.Name("X-Plan")!

    /// Anonymous clients by address, users by plan, staff not limited, an export route costing 5.
    @Test func plansChosenPerRequest() async throws {
      let anonymous = RateLimitPolicy("anon", KeyedRateLimiter<String>(limit: 2, per: .seconds(60)))
      let free = RateLimitPolicy("free", KeyedRateLimiter<String>(limit: 6, per: .seconds(60)))
      let pro = RateLimitPolicy("pro", KeyedRateLimiter<String>(limit: 100, per: .seconds(60)))
      let router = Router(context: AddressContext.self)
      router.add(
        middleware: RateLimitMiddleware { request, context in
          guard let user = request.headers[Self.user] else {
            let address = context.remoteAddress?.ipAddress ?? ""
            return .limit(clientKey(address: address) ?? address, anonymous)
          }
          if request.headers[Self.plan] == "staff" { return .exempt }
          let plan = request.headers[Self.plan] == "pro" ? pro : free
          return .limit(user, request.uri.path.hasPrefix("/export") ? plan.permits(5) : plan)
        })
      router.get("/search") { _, _ in "ok" }
      router.get("/export") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(.live) { client in
        /// The status code and the `RateLimit` field: `200 "anon";r=0;t=60`, `429 -`.
        func get(_ path: String, _ fields: HTTPFields = [:]) async throws -> String {
          try await client.execute(uri: path, method: .get, headers: fields) {
            "\($0.status.code) \($0.headers[HTTPField.Name("RateLimit")!] ?? "-")"
          }
        }
        // Anonymous: 2 by address.
        let answer1 = try await get("/search")
        #expect(answer1 == #"200 "anon";r=1;t=60"#)
        let answer2 = try await get("/search")
        #expect(answer2 == #"200 "anon";r=0;t=60"#)
        let answer3 = try await get("/search")
        #expect(answer3.hasPrefix("429"))
        // A free user: an export costs 5 of 6, then a search is the last one.
        let alice: HTTPFields = [Self.user: "alice"]
        let answer4 = try await get("/export", alice)
        #expect(answer4 == #"200 "free";r=1;t=60"#)
        let answer5 = try await get("/export", alice)
        #expect(answer5.hasPrefix("429"))
        let answer6 = try await get("/search", alice)
        #expect(answer6 == #"200 "free";r=0;t=60"#)
        // A pro user has its own plan; staff are not limited: no fields.
        let answer7 = try await get("/export", [Self.user: "bob", Self.plan: "pro"])
        #expect(answer7 == #"200 "pro";r=95;t=60"#)
        for _ in 0..<10 {
          let answer8 = try await get("/search", [Self.user: "carol", Self.plan: "staff"])
          #expect(answer8 == "200 -")
        }
      }
    }

    /// Exemptions by `AddressRange`, and an empty list is `.exempt`: no decision, no fields.
    @Test func anOfficeRangeIsExempt() async throws {
      let limiter = KeyedRateLimiter<String>(limit: 1, per: .seconds(60))
      let office = AddressRange("127.0.0.0/8")!
      let router = Router(context: AddressContext.self)
      router.add(
        middleware: RateLimitMiddleware(refusal: .problemDetails) { request, context in
          let address = context.remoteAddress?.ipAddress ?? ""
          if request.uri.path == "/none" { return .limit(address, []) }
          return office.contains(address) && request.uri.path != "/outside"
            ? .exempt : .limit(address, RateLimitPolicy("api", limiter))
        })
      router.get("/inside") { _, _ in "ok" }
      router.get("/outside") { _, _ in "ok" }
      router.get("/none") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(.live) { client in
        for path in ["/inside", "/inside", "/none", "/none"] {
          try await client.execute(uri: path, method: .get) { response in
            #expect(response.status == .ok)
            #expect(response.headers[HTTPField.Name("RateLimit")!] == nil)
          }
        }
        try await client.execute(uri: "/outside", method: .get) { #expect($0.status == .ok) }
        try await client.execute(uri: "/outside", method: .get) { response in
          #expect(response.status == .tooManyRequests)
          #expect(response.headers[.contentType] == "application/problem+json")
        }
      }
      #expect(limiter.count == 1)
    }
  }
#endif
