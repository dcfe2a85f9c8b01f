#if Hummingbird
  import HTTPTypes
  import Hummingbird
  import NIOCore
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird

  #if Postgres
    import PostgresNIO
    @_spi(RateLimitIntegration) import RateLimitPostgres
  #endif

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Darwin)
    import Darwin
  #endif

  /// `--serve <port>`: a Hummingbird server on 127.0.0.1:`port` with one limited route. `GET /hello` takes one
  /// permit of two policies per client address: "burst", 3 per 10 s, and "daily", 100 per day (a token bucket);
  /// the 4th request within 10 s gets a 429 with `Retry-After`. Stop it with Ctrl-C.
  ///
  /// ```sh
  /// curl -i http://127.0.0.1:8080/hello
  /// ```
  ///
  /// `--serve <port> <postgres-url>` (with the Postgres trait too): one instance of a fleet. `GET /hello` takes
  /// one permit of "fleet", 10 per minute per client address in a `PostgresRateLimiter`: two instances on one
  /// database grant 10 of 15 requests between them.
  ///
  /// Without a database, `GET /plan` and `GET /plan/export` choose their policy per request (SPEC 4.2's `select`):
  /// no `X-User`: "anon", 2 per minute per address; `X-Plan: staff`: not limited (no fields); `X-Plan: pro`:
  /// "pro", 100 per minute per user; else "free", 6 per minute per user. An export costs 5. Refusals answer
  /// problem details (RFC 9457).
  ///
  /// ```sh
  /// curl -i -H 'X-User: alice' http://127.0.0.1:8080/plan/export
  /// ```
  enum ServeDemo {
    /// A request context with the client's address, for the middleware's address initializer.
    struct Context: RequestContext, RemoteAddressRequestContext {
      var coreContext: CoreRequestContextStorage
      let remoteAddress: SocketAddress?

      init(source: Source) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
      }
    }

    /// `/plan` and `/plan/export`: plans chosen per request.
    static func addPlans(to router: Router<Context>) {
      let anonymous = RateLimitPolicy("anon", KeyedRateLimiter<String>(limit: 2, per: .seconds(60)))
      let free = RateLimitPolicy("free", KeyedRateLimiter<String>(limit: 6, per: .seconds(60)))
      let pro = RateLimitPolicy("pro", KeyedRateLimiter<String>(limit: 100, per: .seconds(60)))
      let user = HTTPField.Name("X-User")!
      let plan = HTTPField.Name("X-Plan")!
      router.group("plan")
        .add(
          middleware: RateLimitMiddleware(refusal: .problemDetails) { request, context in
            guard let id = request.headers[user] else {
              let address = context.remoteAddress?.ipAddress ?? ""
              return .limit(clientKey(address: address) ?? address, anonymous)
            }
            if request.headers[plan] == "staff" { return .exempt }
            let chosen = request.headers[plan] == "pro" ? pro : free
            return .limit(id, request.uri.path.hasSuffix("/export") ? chosen.permits(5) : chosen)
          }
        )
        .get { _, _ in "a plan's request\n" }
        .get("export") { _, _ in "an export\n" }
    }

    static func run(_ arguments: [String]) async -> Int32 {
      guard (2...3).contains(arguments.count), let port = Int(arguments[1]), (1...65_535).contains(port) else {
        var line = "usage: rate-limit-demo --serve <port> [<postgres-url>]\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        return 2
      }
      let router = Router(context: Context.self)
      if arguments.count == 3 {
        #if Postgres
          guard let configuration = _loopbackConfiguration(url: arguments[2]) else {
            var line = "rate-limit-demo: not a postgres:// URL on a loopback address: \(arguments[2])\n"
            line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
            return 2
          }
          let client = PostgresClient(configuration: configuration)
          // Run for as long as the process: the demo stops with it.
          Task { await client.run() }
          let fleet = PostgresRateLimiter(client: client, name: "serve-demo", limit: 10, per: .seconds(60))
          router.group("hello")
            .add(middleware: RateLimitMiddleware(RateLimitPolicy("fleet", fleet)))
            .get { _, _ in "hello\n" }
          print("serving http://127.0.0.1:\(port)/hello: 10 per minute per client address, shared in PostgreSQL")
        #else
          var line = "rate-limit-demo: --serve with a database needs the Postgres trait too\n"
          line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
          return 2
        #endif
      } else {
        let burst = KeyedRateLimiter<String>(limit: 3, per: .seconds(10))
        let daily = KeyedRateLimiter<String>(limit: 100, per: .seconds(86_400), burst: 100)
        router.group("hello")
          .add(middleware: RateLimitMiddleware(RateLimitPolicy("burst", burst), RateLimitPolicy("daily", daily)))
          .get { _, _ in "hello\n" }
        addPlans(to: router)
        print("serving http://127.0.0.1:\(port)/hello: 3 per 10 s and 100 a day per client address")
        print("        http://127.0.0.1:\(port)/plan and /plan/export (costs 5): a plan per request (X-User, X-Plan)")
      }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
      do {
        try await app.runService()
        return 0
      } catch {
        var line = "rate-limit-demo: \(error)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        return 1
      }
    }
  }
#endif
