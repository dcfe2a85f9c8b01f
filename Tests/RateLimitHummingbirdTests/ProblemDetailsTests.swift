#if Hummingbird
  import Foundation
  import HTTPTypes
  import Hummingbird
  import HummingbirdTesting
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import Testing

  /// SPEC 4.2: `refusal: .problemDetails` and `ipv6Prefix:` through Hummingbird's own test library.
  @Suite struct HummingbirdProblemDetailsTests {
    @Test func aRefusalAnswersProblemDetails() async throws {
      let logins = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: ManualClock())
      let router = Router()
      router.add(
        middleware: RateLimitMiddleware(RateLimitPolicy("login", logins), refusal: .problemDetails) { request, _ in
          request.headers[HTTPField.Name("X-User")!]
        })
      router.get("/login") { _, _ in "ok" }
      let app = Application(router: router)
      try await app.test(.router) { client in
        let headers: HTTPFields = [HTTPField.Name("X-User")!: "a"]
        try await client.execute(uri: "/login", method: .get, headers: headers) { #expect($0.status == .ok) }
        try await client.execute(uri: "/login", method: .get, headers: headers) { response in
          #expect(response.status == .tooManyRequests)
          #expect(response.headers[.contentType] == "application/problem+json")
          let json = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]
          #expect(json?["violated-policies"] as? [String] == ["login"])
          #expect(json?["status"] as? Int == 429)
        }
      }
    }

    /// A live server keyed by address with `ipv6Prefix: 48`: the loopback peer (IPv4) keys as itself.
    @Test func theAddressInitializerTakesAnIPv6Prefix() async throws {
      let limiter = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: ManualClock())
      let router = Router(context: AddressContext.self)
      router.add(
        middleware: RateLimitMiddleware(RateLimitPolicy("api", limiter), refusal: .problemDetails, ipv6Prefix: 48))
      router.get("/") { _, _ in "ok" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await app.test(.live) { client in
        try await client.execute(uri: "/", method: .get) { #expect($0.status == .ok) }
        try await client.execute(uri: "/", method: .get) { #expect($0.status == .tooManyRequests) }
      }
      #expect(!limiter.tryAcquire(for: "127.0.0.1"))
    }
  }
#endif
