#if Hummingbird
  import HTTPTypes
  import Hummingbird
  import NIOCore
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird

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

    static func run(_ arguments: [String]) async -> Int32 {
      guard arguments.count == 2, let port = Int(arguments[1]), (1...65_535).contains(port) else {
        var line = "usage: rate-limit-demo --serve <port>\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        return 2
      }
      let burst = KeyedRateLimiter<String>(limit: 3, per: .seconds(10))
      let daily = KeyedRateLimiter<String>(limit: 100, per: .seconds(86_400), burst: 100)
      let router = Router(context: Context.self)
      router.group("hello")
        .add(middleware: RateLimitMiddleware(RateLimitPolicy("burst", burst), RateLimitPolicy("daily", daily)))
        .get { _, _ in "hello\n" }
      let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
      print("serving http://127.0.0.1:\(port)/hello: 3 per 10 s and 100 a day per client address")
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
