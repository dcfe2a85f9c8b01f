#if Vapor
  import RateLimit
  import RateLimitHTTP
  import RateLimitVapor
  import Synchronization
  import Testing
  import Vapor
  import VaporTesting

  /// SPEC 4.3.1: `RateLimitMiddleware(headers:refusal:maxBodySize:select:)` in Vapor, a `select` that may suspend
  /// and read the request's body, which the middleware collects (up to `maxBodySize` bytes, else 413) and hands on
  /// to the route unchanged. In memory and on a live server on a loopback port hit by Vapor's HTTP client.
  @Suite struct VaporBodySelectTests {
    struct Login: Content {
      let user: String
      let password: String
    }

    /// How many times the route ran.
    final class Runs: Sendable {
      private let count = Mutex(0)
      var value: Int { count.withLock { $0 } }
      func increment() { count.withLock { $0 += 1 } }
    }

    /// A JSON login body of exactly `size` bytes (the password padded).
    static func body(user: String, size: Int) -> String {
      let empty = #"{"user":"\#(user)","password":""}"#
      return #"{"user":"\#(user)","password":"\#(String(repeating: "x", count: size - empty.utf8.count))"}"#
    }

    @Test(arguments: [false, true]) func aLoginKeyedByTheUserNameInItsBody(live: Bool) async throws {
      let logins = KeyedRateLimiter<String>(limit: 2, per: .seconds(60), clock: ManualClock())
      let runs = Runs()
      try await withApp { app in
        app.grouped(
          RateLimitMiddleware(headers: .ietf, refusal: .text, maxBodySize: 64) { request in
            let login = try request.content.decode(Login.self)
            return .limit("user:" + login.user, RateLimitPolicy("login", logins))
          }
        ).post("login") { request -> String in
          runs.increment()
          let login = try request.content.decode(Login.self)
          return "welcome \(login.user)"
        }
        let tester: any TestingApplicationTester
        if live {
          app.http.server.configuration.port = 0
          tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
        } else {
          tester = try app.testing()
        }
        /// The status, the `RateLimit` field and the body.
        func login(_ json: String) async throws -> String {
          let response = try await tester.sendRequest(
            .POST, "login", headers: ["Content-Type": "application/json"], body: ByteBuffer(string: json))
          return "\(response.status.code) \(response.headers.first(name: "RateLimit") ?? "-") \(response.body.string)"
        }
        let alice = Self.body(user: "alice", size: 40)
        let first = try await login(alice)
        #expect(first == #"200 "login";r=1;t=60 welcome alice"#)
        let second = try await login(alice)
        #expect(second == #"200 "login";r=0;t=60 welcome alice"#)
        let third = try await login(alice)
        #expect(third.hasPrefix(#"429 "login";r=0;t=60"#))
        let bob = try await login(Self.body(user: "bob", size: 64))
        #expect(bob == #"200 "login";r=1;t=60 welcome bob"#)
        let tooLarge = try await login(Self.body(user: "carol", size: 65))
        #expect(tooLarge.hasPrefix("413 - "))
        let huge = try await login(Self.body(user: "carol", size: 100_000))
        #expect(huge.hasPrefix("413 - "))
        let carol = try await login(Self.body(user: "carol", size: 64))
        #expect(carol == #"200 "login";r=1;t=60 welcome carol"#)
        // A `select` that throws: its error is answered as the route's would be (Vapor's 400 for a body it
        // cannot decode); no decision, the route never runs.
        let malformed = try await login("not json")
        #expect(malformed.hasPrefix("400 - "))
      }
      #expect(runs.value == 4)
      #expect(logins.count == 3)
    }
  }
#endif
