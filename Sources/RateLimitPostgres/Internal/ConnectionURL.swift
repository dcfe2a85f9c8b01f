#if Postgres
  public import PostgresNIO

  /// A client configuration from a URL of the form `postgres://user[:password]@host[:port][/database]`, without TLS:
  /// what the tests, the benchmarks and the demo connect with (a throwaway server on the loopback interface). SPI,
  /// not API: applications configure their `PostgresClient` themselves.
  @_spi(RateLimitIntegration)
  public func loopbackConfiguration(url: String) -> PostgresClient.Configuration? {
    var rest = Substring(url)
    for scheme in ["postgres://", "postgresql://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
    guard let at = rest.lastIndex(of: "@") else { return nil }
    let credentials = rest[..<at].split(separator: ":", maxSplits: 1).map(String.init)
    var location = rest[rest.index(after: at)...]
    var database: String?
    if let slash = location.firstIndex(of: "/") {
      database = String(location[location.index(after: slash)...])
      location = location[..<slash]
    }
    let hostAndPort = location.split(separator: ":", maxSplits: 1).map(String.init)
    guard let host = hostAndPort.first, let user = credentials.first else { return nil }
    let port = hostAndPort.count > 1 ? Int(hostAndPort[1]) : 5432
    guard let port else { return nil }
    return PostgresClient.Configuration(
      host: host, port: port, username: user, password: credentials.count > 1 ? credentials[1] : nil,
      database: database, tls: .disable)
  }
#endif
