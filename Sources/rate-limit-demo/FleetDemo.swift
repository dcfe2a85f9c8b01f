#if Postgres
  import PostgresNIO
  import RateLimit
  @_spi(RateLimitIntegration) import RateLimitPostgres

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Darwin)
    import Darwin
  #endif

  /// `--fleet <postgres-url>`: three instances of one server, each with its own client (its own connections),
  /// share "100 requests per minute per client" through `PostgresRateLimiter`. One client sends 80 requests to
  /// each instance: 240 in all, of which the fleet grants exactly 100. Three `KeyedRateLimiter`s would have
  /// granted all 240 (100 each).
  ///
  /// `--fleet-worker <postgres-url> <name> <limit> <window-ms> <burst, 0: window> <tasks> <requests> <file>`:
  /// one instance as a process of its own, for the tests: `tasks` tasks each ask `requests` times, at once and
  /// without pause, for one permit of key "shared" (`reserve(within: .zero)`), and every grant's instant
  /// (database time, nanoseconds) is written to `file`, one a line.
  ///
  /// `--fleet-keys-worker <postgres-url> <name> <limit> <window-ms> <tasks> <keys> <milliseconds> <file>`: the
  /// same on many keys (a sliding window, the database's clock): for `milliseconds`, `tasks` tasks each ask for
  /// one permit of a random key among `keys` ("k0", "k1", …), and every grant is written to `file` as its key
  /// and its instant, one a line.
  ///
  /// `--fleet-update-worker <postgres-url> <name> <limit> <window-ms> <new-limit, 0: none>`: one instance of a
  /// sliding window made with `limit` per `window-ms` (its `prepare()` traps if the name is stored with other
  /// parameters); it decides key "k" and prints `granted` or `refused`, then, with a new limit, updates the
  /// name's rule for the fleet (`update(limit:per:)`) and decides "k" again.
  enum FleetDemo {
    static func run(_ arguments: [String]) async -> Int32 {
      switch arguments.first {
      case "--fleet" where arguments.count == 2:
        return await fleet(url: arguments[1])
      case "--fleet-worker" where arguments.count == 9:
        return await worker(Array(arguments.dropFirst()))
      case "--fleet-keys-worker" where arguments.count == 9:
        return await keysWorker(Array(arguments.dropFirst()))
      case "--fleet-update-worker" where arguments.count == 6:
        return await updateWorker(Array(arguments.dropFirst()))
      default:
        fail("usage: rate-limit-demo --fleet <postgres-url>")
        return 2
      }
    }

    static func fleet(url: String) async -> Int32 {
      guard let configuration = loopbackConfiguration(url: url) else {
        fail("not a postgres://user@host:port/database URL: \(url)")
        return 2
      }
      let name = "fleet-demo-\(UInt32.random(in: 0...UInt32.max))"
      let clients = (0..<3).map { _ in PostgresClient(configuration: configuration) }
      let running = clients.map { client in Task { await client.run() } }
      defer { running.forEach { $0.cancel() } }
      let instances = clients.map { client in
        PostgresRateLimiter(client: client, name: name, limit: 100, per: .seconds(60), timeout: .seconds(5))
      }
      do {
        try await instances[0].prepare()
        print("Three instances, one limit: 100 requests per minute per client (PostgresRateLimiter \"\(name)\").")
        print("Client \"alice\" sends 80 requests to each instance, all three at once.\n")
        let grants = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
          for (index, instance) in instances.enumerated() {
            group.addTask {
              var granted = 0
              for _ in 0..<80 where try await instance.tryAcquire(for: "alice") { granted += 1 }
              return (index, granted)
            }
          }
          var grants = [0, 0, 0]
          for try await (index, granted) in group { grants[index] = granted }
          return grants
        }
        for (index, granted) in grants.enumerated() {
          print("instance \(index + 1): \(granted) of 80 granted")
        }
        print("total:      \(grants.reduce(0, +)) of 240 granted (limit 100)")
        print("With a KeyedRateLimiter in each instance instead, all 240 would have been granted (100 each).")
        let wait = try await instances[1].retryAfter(for: "alice") ?? .zero
        let seconds = wait.components.seconds + (wait.components.attoseconds > 0 ? 1 : 0)
        print("alice's next request, on any instance: Retry-After \(seconds) s (whole seconds, rounded up)")
        try await instances[0].sweep()
        return 0
      } catch {
        fail("\(error)")
        return 1
      }
    }

    static func updateWorker(_ arguments: [String]) async -> Int32 {
      guard let configuration = loopbackConfiguration(url: arguments[0]), let limit = Int(arguments[2]),
        let window = Int(arguments[3]), let newLimit = Int(arguments[4])
      else {
        fail("bad --fleet-update-worker arguments: \(arguments)")
        return 2
      }
      let client = PostgresClient(configuration: configuration)
      let running = Task { await client.run() }
      defer { running.cancel() }
      let limiter = PostgresRateLimiter(
        client: client, name: arguments[1], limit: limit, per: .milliseconds(window), timeout: .seconds(10))
      do {
        try await limiter.prepare()
        print(try await limiter.decide(for: "k").isGranted ? "granted" : "refused")
        if newLimit > 0 {
          try await limiter.update(limit: newLimit, per: .milliseconds(window))
          print(try await limiter.decide(for: "k").isGranted ? "granted" : "refused")
        }
        return 0
      } catch {
        fail("\(error)")
        return 1
      }
    }

    static func worker(_ arguments: [String]) async -> Int32 {
      guard let configuration = loopbackConfiguration(url: arguments[0]), let limit = Int(arguments[2]),
        let window = Int(arguments[3]), let burst = Int(arguments[4]), let tasks = Int(arguments[5]),
        let requests = Int(arguments[6])
      else {
        fail("bad --fleet-worker arguments: \(arguments)")
        return 2
      }
      let client = PostgresClient(configuration: configuration)
      let running = Task { await client.run() }
      defer { running.cancel() }
      let limiter =
        burst == 0
        ? PostgresRateLimiter(
          client: client, name: arguments[1], limit: limit, per: .milliseconds(window), timeout: .seconds(10))
        : PostgresRateLimiter(
          client: client, name: arguments[1], limit: limit, per: .milliseconds(window), burst: burst,
          timeout: .seconds(10))
      do {
        try await limiter.prepare()
        let instants = try await withThrowingTaskGroup(of: [Duration].self) { group in
          for _ in 0..<tasks {
            group.addTask {
              var granted: [Duration] = []
              for _ in 0..<requests {
                if let booking = try await limiter.reserve(for: "shared", within: .zero) {
                  granted.append(booking.time)
                }
              }
              return granted
            }
          }
          return try await group.reduce(into: []) { $0 += $1 }
        }
        let lines = instants.map {
          "\($0.components.seconds * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000)\n"
        }
        guard let file = fopen(arguments[7], "w") else { return 1 }
        defer { fclose(file) }
        for line in lines { fputs(line, file) }
        return 0
      } catch {
        fail("\(error)")
        return 1
      }
    }

    static func keysWorker(_ arguments: [String]) async -> Int32 {
      guard let configuration = loopbackConfiguration(url: arguments[0]), let limit = Int(arguments[2]),
        let window = Int(arguments[3]), let tasks = Int(arguments[4]), let keys = Int(arguments[5]),
        let milliseconds = Int(arguments[6]), keys > 0
      else {
        fail("bad --fleet-keys-worker arguments: \(arguments)")
        return 2
      }
      let client = PostgresClient(configuration: configuration)
      let running = Task { await client.run() }
      defer { running.cancel() }
      let limiter = PostgresRateLimiter(
        client: client, name: arguments[1], limit: limit, per: .milliseconds(window), timeout: .seconds(10))
      do {
        try await limiter.prepare()
        let end = ContinuousClock.now + .milliseconds(milliseconds)
        let grants = try await withThrowingTaskGroup(of: [(Int, Duration)].self) { group in
          for _ in 0..<tasks {
            group.addTask {
              var granted: [(Int, Duration)] = []
              while ContinuousClock.now < end {
                let key = Int.random(in: 0..<keys)
                if let booking = try await limiter.reserve(for: "k\(key)", within: .zero) {
                  granted.append((key, booking.time))
                }
              }
              return granted
            }
          }
          return try await group.reduce(into: []) { $0 += $1 }
        }
        guard let file = fopen(arguments[7], "w") else { return 1 }
        defer { fclose(file) }
        for (key, time) in grants {
          fputs(
            "\(key) \(time.components.seconds * 1_000_000_000 + time.components.attoseconds / 1_000_000_000)\n", file)
        }
        return 0
      } catch {
        fail("\(error)")
        return 1
      }
    }

    static func fail(_ message: String) {
      var line = "rate-limit-demo: \(message)\n"
      line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
  }
#endif
