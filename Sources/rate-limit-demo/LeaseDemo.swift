#if Postgres
  import Logging
  import PostgresNIO
  import RateLimit
  @_spi(RateLimitIntegration) import RateLimitPostgres

  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Darwin)
    import Darwin
  #endif

  /// `--lease-worker <postgres-url> <name> <limit> <lease-timeout-ms> <mode> …`: one process of a fleet sharing
  /// `PostgresConcurrencyLimiter`s, for the tests (its logger writes to standard error). Modes:
  /// - `exact <tasks> <milliseconds>`: names `<name>-1` … `<name>-<limit>` (limit L each), key "k"; `tasks` tasks
  ///   take leases of random names for `milliseconds`, and each holder adds 1 to its name's row of
  ///   `ratelimit_test_lease_counters` when its work starts and takes it off when it ends. Prints `max L m` (the
  ///   highest count it saw) per name and `over n` (holders that saw more than L). Each holds its lease 250–500 ms.
  /// - `hold <count>`: takes `count` leases of key "k", prints `held`, and holds them (until killed).
  /// - `spread <count>`: takes a lease of each key `one-off-1` … `one-off-<count>`, prints `held`, and holds them
  ///   (until killed).
  /// - `wait <tag>`: waits for a lease of key "k", then inserts `tag` into `ratelimit_test_lease_order` while
  ///   holding it, and releases it 50 ms later.
  /// - `observe <milliseconds>`: decides key "probe" every 10 ms (releasing at once) and prints `limit L` whenever
  ///   the limit its decision reports changes.
  enum LeaseDemo {
    static func run(_ arguments: [String]) async -> Int32 {
      guard arguments.count >= 6, arguments[0] == "--lease-worker",
        let configuration = loopbackConfiguration(url: arguments[1]), let limit = Int(arguments[3]),
        let leaseTimeout = Int(arguments[4])
      else {
        say("usage: rate-limit-demo --lease-worker <postgres-url> <name> <limit> <lease-timeout-ms> <mode> …", to: 2)
        return 2
      }
      let client = PostgresClient(configuration: configuration)
      let running = Task { await client.run() }
      defer { running.cancel() }
      let logger = Logger(label: "lease-worker") { StreamLogHandler.standardError(label: $0) }
      func limiter(_ name: String, _ limit: Int) -> PostgresConcurrencyLimiter {
        PostgresConcurrencyLimiter(
          client: client, name: name, limit: limit, leaseTimeout: .milliseconds(leaseTimeout), timeout: .seconds(10),
          logger: logger)
      }
      let name = arguments[2]
      let rest = Array(arguments.dropFirst(6))
      do {
        switch (arguments[5], rest.count) {
        case ("exact", 2):
          return try await exact(
            client, (1...limit).map { limiter("\(name)-\($0)", $0) }, Int(rest[0]) ?? 1, Int(rest[1]) ?? 0)
        case ("hold", 1), ("spread", 1):
          let gpu = limiter(name, limit)
          var leases: [Lease] = []
          for index in 1...max(1, Int(rest[0]) ?? 1) {
            leases.append(try await gpu.acquire(for: arguments[5] == "hold" ? "k" : "one-off-\(index)"))
          }
          say("held")
          try await Task.sleep(for: .seconds(600))
          withExtendedLifetime(leases) {}
          return 0
        case ("wait", 1):
          let waiter = limiter(name, limit)
          try await waiter.withLease(for: "k") {
            _ = try await client.query(
              "INSERT INTO ratelimit_test_lease_order (name, tag) VALUES (\(name), \(rest[0]))")
            try await Task.sleep(for: .milliseconds(50))
          }
          // The release is sent in the background: a statement of the same limiter waits for it, before exiting.
          _ = try await waiter.inUse(for: "k")
          say("served")
          return 0
        case ("observe", 1):
          let observed = limiter(name, limit)
          var last = 0
          let end = ContinuousClock.now + .milliseconds(Int(rest[0]) ?? 0)
          while ContinuousClock.now < end {
            let decision = try await observed.decide(for: "probe")
            decision.lease?.release()
            if decision.limit != last {
              last = decision.limit
              say("limit \(last)")
            }
            try await Task.sleep(for: .milliseconds(10))
          }
          return 0
        default:
          say("bad --lease-worker mode: \(arguments[5...])", to: 2)
          return 2
        }
      } catch {
        say(String(reflecting: error), to: 2)
        return 1
      }
    }

    /// `exact`: the holders' counts, checked in the database by every holder.
    static func exact(
      _ client: PostgresClient, _ limiters: [PostgresConcurrencyLimiter], _ tasks: Int, _ milliseconds: Int
    )
      async throws -> Int32
    {
      let end = ContinuousClock.now + .milliseconds(milliseconds)
      let results = try await withThrowingTaskGroup(of: [Int: (max: Int, over: Int)].self) { group in
        for _ in 0..<tasks {
          group.addTask {
            var seen: [Int: (max: Int, over: Int)] = [:]
            while ContinuousClock.now < end {
              // A name of limit L is chosen L times out of 36: about two tasks a permit on every name.
              var pick = Int.random(in: 0..<limiters.map(\.limit).reduce(0, +))
              let limiter = limiters.first {
                pick -= $0.limit; return pick < 0
              }!
              let count = try await limiter.withLease(for: "k", within: .seconds(20)) {
                let rows = try await client.query(
                  "UPDATE ratelimit_test_lease_counters SET n = n + 1 WHERE name = \(limiter.name) RETURNING n")
                var count = 0
                for try await n in rows.decode(Int.self) { count = n }
                try await Task.sleep(for: .milliseconds(Int.random(in: 250...500)))
                _ = try await client.query(
                  "UPDATE ratelimit_test_lease_counters SET n = n - 1 WHERE name = \(limiter.name)")
                return count
              }
              let before = seen[limiter.limit] ?? (0, 0)
              seen[limiter.limit] = (max(before.max, count), before.over + (count > limiter.limit ? 1 : 0))
            }
            return seen
          }
        }
        return try await group.reduce(into: [Int: (max: Int, over: Int)]()) { all, seen in
          for (limit, value) in seen {
            let before = all[limit] ?? (0, 0)
            all[limit] = (max(before.max, value.max), before.over + value.over)
          }
        }
      }
      for (limit, value) in results.sorted(by: { $0.key < $1.key }) { say("max \(limit) \(value.max)") }
      say("over \(results.values.map(\.over).reduce(0, +))")
      return 0
    }

    /// Writes `line` to `descriptor` unbuffered: the tests read the output while the process runs.
    static func say(_ line: String, to descriptor: Int32 = 1) {
      var text = line + "\n"
      text.withUTF8 { _ = write(descriptor, $0.baseAddress, $0.count) }
    }
  }
#endif
