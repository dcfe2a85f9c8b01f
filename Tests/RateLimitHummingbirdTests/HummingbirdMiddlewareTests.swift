#if Hummingbird
  import HTTPTypes
  import Hummingbird
  import HummingbirdTesting
  import NIOCore
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import Testing

  /// A request context with the client's address, as an app that keys by address has.
  struct AddressContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: Source) {
      self.coreContext = .init(source: source)
      self.remoteAddress = source.channel.remoteAddress
    }
  }

  /// A store that cannot decide, as a `PostgresRateLimiter` under `.throwError` with its database away.
  struct StoreAway: Error {}
  struct UnavailableLimiter: SharedKeyedLimiter {
    func tryAcquire(_ permits: Int, for key: String) async throws -> Bool { throw StoreAway() }
    func retryAfter(_ permits: Int, for key: String) async throws -> Duration? { throw StoreAway() }
    func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision { throw StoreAway() }
  }

  @Suite struct HummingbirdMiddlewareTests {
    static let apiKey = HTTPField.Name("X-Api-Key")!

    /// SPEC 4.1.1: a limiter that throws while deciding is answered 503 with `Retry-After: 1`, no RateLimit
    /// fields, and the request's other grants taken back (4.1 answered a bare 500).
    @Test func aStoreThatCannotDecideIsA503() async throws {
      let searches = KeyedRateLimiter<String>(limit: 10, per: .seconds(10))
      let router = Router()
      router.group("search")
        .add(
          middleware: RateLimitMiddleware(
            RateLimitPolicy("search", searches), RateLimitPolicy("shared", UnavailableLimiter())
          ) { request, _ in request.headers[Self.apiKey] }
        )
        .get { _, _ in "ok" }
      let app = Application(router: router)
      try await app.test(.router) { client in
        try await client.execute(uri: "/search", method: .get, headers: [Self.apiKey: "alice"]) { response in
          #expect(response.status == .serviceUnavailable)
          #expect(response.headers[.retryAfter] == "1")
          #expect(response.headers[HTTPField.Name("RateLimit")!] == nil)
          #expect(String(buffer: response.body) == "Service Unavailable\n")
        }
      }
      #expect(searches.decide(for: "alice").remaining == 9)
    }

    @Test func tenPerTenSecondsThroughTheRouter() async throws {
      let clock = ManualClock()
      let searches = KeyedRateLimiter<String>(limit: 10, per: .seconds(10), clock: clock)
      let router = Router()
      router.group("search")
        .add(
          middleware: RateLimitMiddleware(RateLimitPolicy("search", searches)) { request, _ in
            request.headers[Self.apiKey]
          }
        )
        .get { _, _ in "ok" }
      let app = Application(router: router)
      try await app.test(.router) { client in
        for index in 0..<10 {
          try await client.execute(uri: "/search", method: .get, headers: [Self.apiKey: "alice"]) { response in
            #expect(response.status == .ok)
            #expect(response.headers[HTTPField.Name("RateLimit-Policy")!] == #""search";q=10;w=10"#)
            #expect(response.headers[HTTPField.Name("RateLimit")!] == "\"search\";r=\(9 - index);t=10")
          }
          clock.advance(by: .milliseconds(100))
        }
        try await client.execute(uri: "/search", method: .get, headers: [Self.apiKey: "alice"]) { response in
          #expect(response.status == .tooManyRequests)
          #expect(response.headers[.retryAfter] == "9")
          // t is the effective window (SPEC 4.2): the one permit comes with Retry-After, never later.
          #expect(response.headers[HTTPField.Name("RateLimit")!] == #""search";r=0;t=9"#)
          #expect(String(buffer: response.body) == "Too Many Requests\n")
        }
        // Another key has its own quota; no key is not limited.
        try await client.execute(uri: "/search", method: .get, headers: [Self.apiKey: "bob"]) { response in
          #expect(response.status == .ok)
        }
        try await client.execute(uri: "/search", method: .get) { response in
          #expect(response.status == .ok)
          #expect(response.headers[HTTPField.Name("RateLimit")!] == nil)
        }
        let huge = String(repeating: "k", count: 1_025)
        try await client.execute(uri: "/search", method: .get, headers: [Self.apiKey: huge]) { response in
          #expect(response.status == .badRequest)
        }
      }
    }

    @Test func aLiveServerKeyedByAddressIgnoresSpoofedForwardedFor() async throws {
      let limiter = KeyedRateLimiter<String>(limit: 2, per: .seconds(60))
      let router = Router(context: AddressContext.self)
      router.add(middleware: RateLimitMiddleware(RateLimitPolicy("api", limiter)))
      router.get("/") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(.live) { client in
        var statuses: [HTTPResponse.Status] = []
        for spoof in ["1.1.1.1", "2.2.2.2", "3.3.3.3"] {
          let headers: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: spoof]
          try await client.execute(uri: "/", method: .get, headers: headers) { response in
            statuses.append(response.status)
            if response.status == .tooManyRequests {
              #expect(response.headers[HTTPField.Name("RateLimit-Policy")!] == #""api";q=2;w=60"#)
              #expect(response.headers[.retryAfter] == "60")
            }
          }
        }
        #expect(statuses == [.ok, .ok, .tooManyRequests])
      }
      #expect(limiter.count == 1)
      #expect(!limiter.tryAcquire(for: "127.0.0.1"), "the key is the peer's address, as `clientKey` spells it")
    }

    @Test func behindOneTrustedProxyTheForwardedAddressIsTheKey() async throws {
      let limiter = KeyedRateLimiter<String>(limit: 1, per: .seconds(60))
      let router = Router(context: AddressContext.self)
      router.add(middleware: RateLimitMiddleware(RateLimitPolicy("api", limiter), trustedProxies: 1))
      router.get("/") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(.live) { client in
        var statuses: [HTTPResponse.Status] = []
        for forwarded in ["203.0.113.1", "203.0.113.2", "9.9.9.9, 203.0.113.1", "2001:db8:1:2::1", "2001:db8:1:2::99"] {
          let headers: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: forwarded]
          try await client.execute(uri: "/", method: .get, headers: headers) { response in
            statuses.append(response.status)
          }
        }
        // The rightmost entry is the proxy's: 203.0.113.1 twice, and one /64 twice.
        #expect(statuses == [.ok, .ok, .tooManyRequests, .ok, .tooManyRequests])
      }
    }

    /// SPEC 4.1.1: behind a trusted proxy, an entry that is not an address keys the request by the peer; 4.1
    /// left such a request unlimited (no decision, no fields). Live server, real client.
    @Test func aNonAddressForwardedEntryIsLimitedAsThePeer() async throws {
      let limiter = KeyedRateLimiter<String>(limit: 2, per: .seconds(60))
      let router = Router(context: AddressContext.self)
      router.add(middleware: RateLimitMiddleware(RateLimitPolicy("api", limiter), trustedProxies: 1))
      router.get("/") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(.live) { client in
        var statuses: [HTTPResponse.Status] = []
        for forwarded in ["unknown", "_hidden", "for=1.1.1.1", "1.1.1.1;x"] {
          let headers: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: forwarded]
          try await client.execute(uri: "/", method: .get, headers: headers) { response in
            statuses.append(response.status)
            #expect(response.headers[HTTPField.Name("RateLimit-Policy")!] == #""api";q=2;w=60"#)
          }
        }
        #expect(statuses == [.ok, .ok, .tooManyRequests, .tooManyRequests])
      }
      #expect(!limiter.tryAcquire(for: "127.0.0.1"), "keyed by the peer")
    }

    /// The article's fallback ("Rate limiting a server"): requests with an API key are keyed by it, the others
    /// by their address, instead of going unlimited. Compiled as written, run on a live server.
    @Test func aKeyClosureFallsBackToTheAddress() async throws {
      let searches = KeyedRateLimiter<String>(limit: 1, per: .seconds(60))
      let router = Router(context: AddressContext.self)
      router.group("api")
        .add(
          middleware: RateLimitMiddleware(
            RateLimitPolicy("api", searches)
          ) { request, context in
            if let apiKey = request.headers[HTTPField.Name("X-Api-Key")!] {
              return "key:" + apiKey
            }
            return context.remoteAddress?.ipAddress
              .flatMap(clientKey(address:)).map { "ip:" + $0 }
          }
        )
        .get { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(.live) { client in
        var statuses: [HTTPResponse.Status] = []
        for apiKey in [nil, nil, "alice", "alice"] as [String?] {
          var headers = HTTPFields()
          if let apiKey { headers[HTTPField.Name("X-Api-Key")!] = apiKey }
          try await client.execute(uri: "/api", method: .get, headers: headers) { response in
            statuses.append(response.status)
          }
        }
        #expect(statuses == [.ok, .tooManyRequests, .ok, .tooManyRequests])
      }
      #expect(searches.count == 2)
    }
  }
#endif
