#if Postgres
  import Foundation
  import PostgresNIO
  import RateLimit
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// SPEC 4.3.1, "a fallback's answer never outlives the outage", tested as the report found it (issue 53 item
  /// 1): two server processes (the demo's `--serve <port> <url>`, Hummingbird and PostgreSQL) on one database,
  /// a plan of two PostgreSQL policies with `.fallback` and a shadow policy, 200 concurrent requests for one fresh
  /// key, with a timeout short enough that part of them is answered by the fallbacks. Then:
  /// - each policy's key in the database holds exactly the database's grants: with what the fallbacks hold, one
  ///   permit per request granted, and nothing for a refused one;
  /// - both processes answer the key as the database does (its `r`, no refusal it does not hold).
  /// On 8a38a49 a process stayed in the outage back-off after such a burst (a probe refused for the key's lock
  /// never ended it) and answered from its fallback for good.
  @Suite(.serialized) struct BurstFleetTests {
    static let demo = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("rate-limit-demo").path

    @Test(arguments: [1, 2, 3]) func aBurstOverTwoProcessesLeavesExactlyTheDatabasesGrants(run: Int) async throws {
      guard let url = TestDatabase.url else {
        _ = TestDatabase.configuration()
        return
      }
      let ports = (0..<2).map { _ in freePort() }
      let servers = ports.enumerated().map { index, port in
        spawn(
          [Self.demo, "--serve", "\(port)", url],
          environment: ["RATELIMIT_DEMO_TIMEOUT_MS": ProcessInfo.processInfo.environment["BURST_TIMEOUT_MS"] ?? "100"],
          output: "/tmp/ratelimit-burst-\(port).log", errors: "/tmp/ratelimit-burst-\(port).err")
      }
      defer {
        for server in servers { if let server { kill(server, SIGTERM) } }
        _ = wait(for: servers, atMost: .seconds(10))
      }
      for port in ports { #expect(await waitUntilListening(port), "port \(port)") }
      let key = "burst-\(UInt64.random(in: 0...UInt64.max))"
      let configuration = URLSessionConfiguration.ephemeral
      configuration.httpMaximumConnectionsPerHost = 100
      configuration.timeoutIntervalForRequest = 30
      let session = URLSession(configuration: configuration)
      // Each process has decided once (another key): its limiters are prepared.
      for port in ports { _ = try await Self.get(session, port, key: "warm-\(key)") }
      let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
        for index in 0..<200 {
          group.addTask { try await Self.get(session, ports[index % 2], key: key).status }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      let granted = statuses.filter { $0 == 200 }.count
      #expect(
        statuses.allSatisfy { $0 == 200 || $0 == 429 }, "\(Dictionary(grouping: statuses) { $0 }.mapValues(\.count))")

      // What the database holds for the key, once every statement sent for the burst is answered or revoked
      // (stable for a second), and what each process's fallbacks hold.
      let database = try await TestDatabase.withClient { client in
        try await Self.settledBookings(of: key, on: client)
      }
      guard let database else { return }
      var fallbacks = (burst: 0, daily: 0)
      for port in ports {
        let held = try await Self.get(session, port, path: "/fleet-plans/held?key=\(key)").body
        let numbers = held.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(numbers.count == 2, "\(held)")
        if numbers.count == 2 { fallbacks = (fallbacks.burst + numbers[0], fallbacks.daily + numbers[1]) }
      }
      let context = "run \(run): \(granted) granted; the database holds \(database), the fallbacks \(fallbacks)"
      #expect(database.burst + fallbacks.burst == granted, "\(context)")
      #expect(database.daily + fallbacks.daily == granted, "\(context)")
      #expect(database.burst <= 100, "\(context)")
      print("BurstFleetTests: \(context)")

      // The burst's window (20 s) over, both processes answer as the database does: "burst" full again, "daily"
      // with what the database holds.
      try await Task.sleep(for: .seconds(21))
      for (index, port) in ports.enumerated() {
        let (status, _, fields) = try await Self.get(session, port, key: key)
        #expect(status == 200, "\(context); then \(status) \(fields)")
        #expect(Self.remaining("burst", in: fields) == 99 - index, "\(context); then \(fields)")
        #expect(Self.remaining("daily", in: fields) == 1_000 - database.daily - 1 - index, "\(context); then \(fields)")
      }
    }

    /// The `r` of `policy` in a `RateLimit` field.
    static func remaining(_ policy: String, in field: String) -> Int? {
      for member in field.split(separator: ",") {
        let parameters = member.trimmingCharacters(in: .whitespaces).split(separator: ";")
        guard parameters.first == "\"\(policy)\"" else { continue }
        return parameters.lazy.compactMap { $0.hasPrefix("r=") ? Int($0.dropFirst(2)) : nil }.first
      }
      return nil
    }

    /// One request for `key` (`/fleet-plans` with `X-Key`), or of `path`: its status, body and `RateLimit` field.
    static func get(_ session: URLSession, _ port: Int, key: String? = nil, path: String = "/fleet-plans")
      async throws -> (status: Int, body: String, fields: String)
    {
      var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
      if let key { request.setValue(key, forHTTPHeaderField: "X-Key") }
      let (data, response) = try await session.data(for: request)
      let http = response as? HTTPURLResponse
      return (
        http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), http?.value(forHTTPHeaderField: "RateLimit") ?? ""
      )
    }

    /// The bookings the two PostgreSQL policies hold for `key` once they have not changed for a second (at most
    /// 60 s): revocations of statements the burst gave up on are answered by then.
    static func settledBookings(of key: String, on client: PostgresClient) async throws -> (burst: Int, daily: Int) {
      var last = (burst: -1, daily: -1)
      var stableSince = ContinuousClock.now
      let deadline = ContinuousClock.now + .seconds(60)
      while ContinuousClock.now < deadline {
        let now = (
          burst: try await Self.bookings(of: "fleet-plans-burst", key, on: client),
          daily: try await Self.bookings(of: "fleet-plans-daily", key, on: client)
        )
        if now != last {
          (last, stableSince) = (now, .now)
        } else if ContinuousClock.now - stableSince >= .seconds(1) {
          return now
        }
        try await Task.sleep(for: .milliseconds(50))
      }
      Issue.record("the bookings never settled: \(last)")
      return last
    }

    /// The bookings (of one permit each) `name` holds for `key`, in its row and its chunks.
    static func bookings(of name: String, _ key: String, on client: PostgresClient) async throws -> Int {
      let held = try await HotKeyTests.bookings(of: name, key, on: client)
      return held.inRow + held.inChunks
    }

    /// Whether something listens on `port` within 30 s (a connection, not a request: a request takes a permit).
    func waitUntilListening(_ port: Int) async -> Bool {
      for _ in 0..<300 {
        if canConnect(port) { return true }
        try? await Task.sleep(for: .milliseconds(100))
      }
      return false
    }
  }

  /// A port free on 127.0.0.1 now.
  func freePort() -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
  func canConnect(_ port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }
#endif
