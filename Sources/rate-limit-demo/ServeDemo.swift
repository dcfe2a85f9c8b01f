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

    #if Postgres
      /// `/fleet-plans` (with a database): a plan's two limits in PostgreSQL per `X-Key`, each with a `.fallback`
      /// of half its limit (two instances): "burst", 100 per 20 s, and "daily", 1,000 per day; and "shadow", 5 per
      /// 20 s, reported only. `GET /fleet-plans/held?key=K` answers the permits each fallback holds for K
      /// (`burst 3 daily 3`). The decisions' timeout is `RATELIMIT_DEMO_TIMEOUT_MS` (default 250): the tests
      /// shorten it so that part of a burst is answered by the fallbacks.
      static func addFleetPlans(to router: Router<Context>, client: PostgresClient) {
        let milliseconds = getenv("RATELIMIT_DEMO_TIMEOUT_MS").flatMap { Int(String(cString: $0)) } ?? 250
        let timeout = Duration.milliseconds(milliseconds)
        let burstFallback = KeyedRateLimiter<String>(limit: 50, per: .seconds(20))
        let dailyFallback = KeyedRateLimiter<String>(limit: 500, per: .seconds(86_400))
        let burst = PostgresRateLimiter(
          client: client, name: "fleet-plans-burst", limit: 100, per: .seconds(20),
          whenUnavailable: .fallback(burstFallback), timeout: timeout)
        let daily = PostgresRateLimiter(
          client: client, name: "fleet-plans-daily", limit: 1_000, per: .seconds(86_400),
          whenUnavailable: .fallback(dailyFallback), timeout: timeout)
        let shadow = PostgresRateLimiter(
          client: client, name: "fleet-plans-shadow", limit: 5, per: .seconds(20), whenUnavailable: .allow,
          timeout: timeout)
        let key = HTTPField.Name("X-Key")!
        router.group("fleet-plans")
          .add(
            middleware: RateLimitMiddleware(
              RateLimitPolicy("burst", burst), RateLimitPolicy("daily", daily),
              RateLimitPolicy("shadow", shadow, mode: .shadow)
            ) { request, _ in request.headers[key] }
          )
          .get { _, _ in "a plan's request\n" }
        router.get("fleet-plans/held") { request, _ -> String in
          let key = request.uri.queryParameters.get("key") ?? ""
          func held(_ limiter: KeyedRateLimiter<String>) -> Int {
            let peek = limiter.peek(for: key)
            return peek.isGranted ? limiter.limit - peek.remaining - 1 : limiter.limit
          }
          return "burst \(held(burstFallback)) daily \(held(dailyFallback))\n"
        }
      }
    #endif

    static func run(_ arguments: [String]) async -> Int32 {
      guard (2...3).contains(arguments.count), let port = Int(arguments[1]), (1...65_535).contains(port) else {
        var line = "usage: rate-limit-demo --serve <port> [<postgres-url>]\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        return 2
      }
      let router = Router(context: Context.self)
      if arguments.count == 3 {
        #if Postgres
          guard let configuration = loopbackConfiguration(url: arguments[2]) else {
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
          addFleetPlans(to: router, client: client)
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
