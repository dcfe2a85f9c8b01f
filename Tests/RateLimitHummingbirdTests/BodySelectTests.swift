#if Hummingbird
  import HTTPTypes
  import Hummingbird
  import HummingbirdTesting
  import NIOCore
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import Synchronization
  import Testing

  /// SPEC 4.3.1: `RateLimitMiddleware(headers:refusal:maxBodySize:select:)`, a `select` that may suspend and read
  /// the request's body, which the middleware collects (up to `maxBodySize` bytes, else 413) and hands on to the
  /// route unchanged. Through Hummingbird's router, its live client, and AsyncHTTPClient on a loopback port.
  @Suite struct HummingbirdBodySelectTests {
    struct Login: Codable {
      let user: String
      let password: String
    }

    /// How many times the route ran.
    final class Runs: Sendable {
      private let count = Mutex(0)
      var value: Int { count.withLock { $0 } }
      func increment() { count.withLock { $0 += 1 } }
    }

    /// A login route keyed by the user name read from the JSON body; the route reads the same body.
    static func router(_ logins: KeyedRateLimiter<String>, _ runs: Runs) -> Router<AddressContext> {
      let router = Router(context: AddressContext.self)
      router.group("login")
        .add(
          middleware: RateLimitMiddleware(headers: .ietf, refusal: .text, maxBodySize: 64) { request, context in
            let login = try await request.decode(as: Login.self, context: context)
            return .limit("user:" + login.user, RateLimitPolicy("login", logins))
          }
        )
        .post { request, context -> String in
          runs.increment()
          let login = try await request.decode(as: Login.self, context: context)
          return "welcome \(login.user)"
        }
      return router
    }

    /// A JSON login body of exactly `size` bytes (the password padded).
    static func body(user: String, size: Int) -> String {
      let empty = #"{"user":"\#(user)","password":""}"#
      return #"{"user":"\#(user)","password":"\#(String(repeating: "x", count: size - empty.utf8.count))"}"#
    }

    @Test(arguments: ["router", "live", "ahc"])
    func aLoginKeyedByTheUserNameInItsBody(client kind: String) async throws {
      let logins = KeyedRateLimiter<String>(limit: 2, per: .seconds(60), clock: ManualClock())
      let runs = Runs()
      let app = Application(
        router: Self.router(logins, runs), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      let setup: TestingSetup = kind == "router" ? .router : kind == "live" ? .live : .ahc(.http)
      try await app.test(setup) { client in
        /// The status, the `RateLimit` field and the body.
        func login(_ json: String) async throws -> String {
          try await client.execute(
            uri: "/login", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: json)
          ) {
            "\($0.status.code) \($0.headers[HTTPField.Name("RateLimit")!] ?? "-") \(String(buffer: $0.body))"
          }
        }
        let alice = Self.body(user: "alice", size: 40)
        let first = try await login(alice)
        #expect(first == #"200 "login";r=1;t=60 welcome alice"#)
        let second = try await login(alice)
        #expect(second == #"200 "login";r=0;t=60 welcome alice"#)
        let third = try await login(alice)
        #expect(third.hasPrefix(#"429 "login";r=0;t=60"#))
        // Another user in the body has a key of its own; a body of exactly 64 bytes is read.
        let bob = try await login(Self.body(user: "bob", size: 64))
        #expect(bob == #"200 "login";r=1;t=60 welcome bob"#)
        // 65 bytes: 413, no decision, the route never runs; the connection still serves the next request.
        let tooLarge = try await login(Self.body(user: "carol", size: 65))
        #expect(tooLarge.hasPrefix("413 - "))
        let huge = try await login(Self.body(user: "carol", size: 100_000))
        #expect(huge.hasPrefix("413 - "))
        let carol = try await login(Self.body(user: "carol", size: 64))
        #expect(carol == #"200 "login";r=1;t=60 welcome carol"#)
        // A `select` that throws: its error is answered as the route's would be (Hummingbird's 400 for a body it
        // cannot decode); no decision, the route never runs.
        let malformed = try await login("not json")
        #expect(malformed.hasPrefix("400 - "))
      }
      #expect(runs.value == 4)
      #expect(logins.peek(1, for: "user:carol").remaining == 0)
      #expect(logins.count == 3)
    }

    /// The synchronous `select` keeps its meaning, and a trailing closure that does not suspend still picks it.
    @Test func theSynchronousFormStillReadsNoBody() async throws {
      let limiter = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: ManualClock())
      let router = Router()
      router.add(
        middleware: RateLimitMiddleware { request, _ in .limit(request.uri.path, RateLimitPolicy("p", limiter)) })
      router.post("/echo") { request, _ -> String in
        String(buffer: try await request.body.collect(upTo: 1_000_000))
      }
      try await Application(router: router).test(.router) { client in
        // More than `maxBodySize`'s default: the synchronous form collects nothing and limits nothing by size.
        let large = String(repeating: "y", count: 100_000)
        try await client.execute(uri: "/echo", method: .post, body: ByteBuffer(string: large)) { response in
          #expect(response.status == .ok)
          #expect(String(buffer: response.body) == large)
        }
      }
    }
  }
#endif
