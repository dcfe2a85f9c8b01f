#if Hummingbird
  import HTTPTypes
  import Hummingbird
  import HummingbirdTesting
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import Testing

  /// SPEC 4.3: an API client whose `RateLimiter` follows a live server's quota through `ServerQuota` (one line,
  /// `block(for: quota.wait)`) sends no request the server refuses once it has been told to wait.
  @Suite struct ServerQuotaClientTests {
    @Test func aClientThatFollowsTheServerIsNeverRefusedOnceTold() async throws {
      // The server: 2 requests a second per client. The client's own limit is far looser: 100 a second.
      let router = Router(context: RateLimitRequestContext.self)
      router.add(
        middleware: RateLimitMiddleware(RateLimitPolicy("api", KeyedRateLimiter<String>(limit: 2, per: .seconds(1)))))
      router.get("/") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      let api = RateLimiter(limit: 100, per: .seconds(1))
      try await app.test(.live) { client in
        var statuses: [HTTPResponse.Status] = []
        var toldAt: Int?
        for index in 0..<7 {
          try await api.acquire()
          let quota = try await client.execute(uri: "/", method: .get) { response in
            statuses.append(response.status)
            let fields = response.headers.map { (name: $0.name.rawName, value: $0.value) }
            return ServerQuota(status: Int(response.status.code), fields: fields)
          }
          if toldAt == nil, quota.wait > .zero { toldAt = index }
          api.block(for: quota.wait)
        }
        // Told after the second request (r=0;t=1), then every request waits its turn.
        #expect(toldAt == 1)
        #expect(statuses == Array(repeating: .ok, count: 7), "\(statuses)")
      }
    }

    /// Without following the server, the same client runs into its limit: the test above can fail.
    @Test func aClientThatDoesNotFollowIsRefused() async throws {
      let router = Router(context: RateLimitRequestContext.self)
      router.add(
        middleware: RateLimitMiddleware(RateLimitPolicy("api", KeyedRateLimiter<String>(limit: 2, per: .seconds(1)))))
      router.get("/") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(.live) { client in
        var refused = 0
        for _ in 0..<4 {
          try await client.execute(uri: "/", method: .get) { response in
            if response.status == .tooManyRequests {
              refused += 1
              let fields = response.headers.map { (name: $0.name.rawName, value: $0.value) }
              #expect(ServerQuota(status: 429, fields: fields).wait == .seconds(1))
            }
          }
        }
        #expect(refused == 2)
      }
    }
  }
#endif
