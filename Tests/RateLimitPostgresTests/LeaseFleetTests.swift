#if Postgres
  import Foundation
  import PostgresNIO
  import RateLimit
  import RateLimitPostgres
  import Testing

  /// SPEC 4.4, "Tested for real": `PostgresConcurrencyLimiter` across OS processes (the demo's `--lease-worker`,
  /// built beside this test): exact under load, a killed holder's permits back within the bounds, a frozen one
  /// losing its leases and logging it, waiters of several processes served in arrival order, `update` seen by
  /// every process.
  @Suite(.serialized) struct LeaseFleetTests {
    static var demo: String {
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("rate-limit-demo").path
    }

    /// Starts a worker, its output and errors in files of its own: its pid and the two paths.
    static func start(_ arguments: [String]) -> (pid: pid_t?, output: String, errors: String) {
      let base = "/tmp/ratelimit-lease-\(UInt64.random(in: 0...UInt64.max))"
      let pid = spawn([demo, "--lease-worker"] + arguments, output: base + ".out", errors: base + ".err")
      return (pid, base + ".out", base + ".err")
    }

    static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Polls `path` until it contains `text` (at most `atMost`).
    static func waitFor(_ text: String, in path: String, atMost: Duration = .seconds(30)) async throws -> Bool {
      let end = ContinuousClock.now + atMost
      while ContinuousClock.now < end {
        if read(path).contains(text) { return true }
        try await Task.sleep(for: .milliseconds(10))
      }
      return false
    }

    /// Six processes × sixteen tasks on eight names of limit 1…8: every holder counts itself in a table of the
    /// test's own while it holds its lease; no count ever exceeds its limit, and every limit is reached.
    @Test func sixProcessesNeverExceedALimitAndReachEveryOne() async throws {
      guard let url = TestDatabase.url else {
        _ = TestDatabase.configuration()
        return
      }
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        _ = try await client.query(
          "CREATE TABLE IF NOT EXISTS ratelimit_test_lease_counters (name text PRIMARY KEY, n integer NOT NULL)")
        for limit in 1...8 {
          _ = try await client.query("INSERT INTO ratelimit_test_lease_counters VALUES (\("\(name)-\(limit)"), 0)")
        }
        let workers = (0..<6).map { _ in Self.start([url, name, "8", "3000", "exact", "16", "4000"]) }
        let statuses = await waitOffThePool { wait(for: workers.map(\.pid), atMost: .seconds(120)) }
        var highest = [Int: Int]()
        for (worker, status) in zip(workers, statuses) {
          let output = Self.read(worker.output)
          #expect(status == 0, "\(Self.read(worker.errors))")
          #expect(output.contains("over 0\n"), "\(output)")
          for line in output.split(separator: "\n") where line.hasPrefix("max ") {
            let parts = line.split(separator: " ").compactMap { Int($0) }
            highest[parts[0]] = max(highest[parts[0]] ?? 0, parts[1])
          }
        }
        for limit in 1...8 { #expect(highest[limit] == limit, "limit \(limit): at most \(highest[limit] ?? 0) held") }
        let rows = try await client.query(
          "SELECT count(*)::bigint FROM ratelimit_test_lease_counters WHERE name LIKE \(name + "-%") AND n <> 0")
        for try await count in rows.decode(Int64.self) { #expect(count == 0) }
      }
    }

    /// A holder killed with SIGKILL: its permits are never free while it renews (here 1.5 × leaseTimeout), and
    /// after the kill come back between 2/3 × leaseTimeout and leaseTimeout (plus a check period for a waiter).
    @Test func aKilledHoldersPermitsComeBackWithinTheBounds() async throws {
      guard let url = TestDatabase.url else {
        _ = TestDatabase.configuration()
        return
      }
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let leaseTimeout = Duration.seconds(2)
        let worker = Self.start([url, name, "2", "2000", "hold", "2"])
        let pid = try #require(worker.pid)
        defer {
          kill(pid, SIGKILL)
          _ = wait(for: pid, atMost: .seconds(5))
        }
        #expect(try await Self.waitFor("held", in: worker.output), "\(Self.read(worker.errors))")
        let here = PostgresConcurrencyLimiter(
          client: client, name: name, limit: 2, leaseTimeout: leaseTimeout, timeout: TestDatabase.timeout)
        let renewing = ContinuousClock.now
        while ContinuousClock.now - renewing < leaseTimeout * 1.5 {
          #expect(try await here.tryAcquire(for: "k") == nil)
          try await Task.sleep(for: .milliseconds(50))
        }
        let waiter = Task { () -> Duration in
          let lease = try await here.acquire(for: "k")
          defer { lease.release() }
          return ContinuousClock.now - renewing
        }
        try await LeaseTests.waitUntilWaiting(1, name: name, client: client)
        kill(pid, SIGKILL)
        let killed = ContinuousClock.now - renewing
        // The waiter is served once the killed holder's leases expire: never before 2/3 × leaseTimeout, at most a
        // check period after leaseTimeout.
        let served = try await waiter.value - killed
        #expect(served >= leaseTimeout * 2 / 3, "served \(served) after the kill")
        #expect(served <= leaseTimeout + leaseTimeout / 3 + .milliseconds(300), "served \(served) after the kill")
        // The other permit came back with it.
        #expect(try await here.tryAcquire(for: "k") != nil)
      }
    }

    /// A holder killed with SIGKILL while it holds leases on fifty keys that nobody uses again: once they expired,
    /// another process's next decision of the name sweeps their rows, so that the database keeps only the keys
    /// in use (before: the rows stayed until a statement on the same key, which never came). A lease held and
    /// renewed meanwhile is never swept.
    @Test func aKilledHoldersLeasesOnKeysNobodyUsesAgainAreSwept() async throws {
      guard let url = TestDatabase.url else {
        _ = TestDatabase.configuration()
        return
      }
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let leaseTimeout = Duration.seconds(1)
        let worker = Self.start([url, name, "1", "1000", "spread", "50"])
        let pid = try #require(worker.pid)
        defer {
          kill(pid, SIGKILL)
          _ = wait(for: pid, atMost: .seconds(5))
        }
        #expect(try await Self.waitFor("held", in: worker.output), "\(Self.read(worker.errors))")
        /// The name's rows whose key starts with `prefix`.
        func rows(_ prefix: String) async throws -> Int64 {
          let query: PostgresQuery = """
            SELECT count(*)::bigint FROM ratelimit_leases WHERE name = \(ByteBuffer(string: name)) \
            AND substring(key FROM 1 FOR \(Int32(prefix.utf8.count))) = \(ByteBuffer(string: prefix))
            """
          for try await count in try await client.query(query).decode(Int64.self) { return count }
          return -1
        }
        #expect(try await rows("one-off-") == 50)
        let here = PostgresConcurrencyLimiter(
          client: client, name: name, limit: 1, leaseTimeout: leaseTimeout, timeout: TestDatabase.timeout)
        let live = try #require(try await here.tryAcquire(for: "live"))
        kill(pid, SIGKILL)
        try await Task.sleep(for: leaseTimeout * 1.5)
        let other = try #require(try await here.tryAcquire(for: "other"))
        other.release()
        let end = ContinuousClock.now + .seconds(5)
        while try await rows("one-off-") > 0, ContinuousClock.now < end {
          try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await rows("one-off-") == 0, "the killed holder's rows of keys one-off-…")
        #expect(try await here.inUse(for: "live") == 1)
        live.release()
      }
    }

    /// A holder frozen with SIGSTOP longer than leaseTimeout loses its leases (another process takes the permit),
    /// and once it runs again, its renewal logs an error naming the name and the key; its release does nothing.
    @Test func aFrozenHolderLosesItsLeasesAndLogsIt() async throws {
      guard let url = TestDatabase.url else {
        _ = TestDatabase.configuration()
        return
      }
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let worker = Self.start([url, name, "1", "1000", "hold", "1"])
        let pid = try #require(worker.pid)
        defer {
          kill(pid, SIGKILL)
          _ = wait(for: pid, atMost: .seconds(5))
        }
        #expect(try await Self.waitFor("held", in: worker.output), "\(Self.read(worker.errors))")
        let here = PostgresConcurrencyLimiter(
          client: client, name: name, limit: 1, leaseTimeout: .seconds(1), timeout: TestDatabase.timeout)
        #expect(try await here.tryAcquire(for: "k") == nil)
        kill(pid, SIGSTOP)
        try await Task.sleep(for: .milliseconds(2_000))
        let lease = try #require(try await here.tryAcquire(for: "k"))
        kill(pid, SIGCONT)
        #expect(try await Self.waitFor("error", in: worker.errors, atMost: .seconds(5)))
        let log = Self.read(worker.errors)
        #expect(log.contains("expired") && log.contains(name) && log.contains("ratelimit.key=k"), "\(log)")
        #expect(try await here.inUse(for: "k") == 1)
        lease.release()
      }
    }

    /// Waiters of five processes, each started once the one before waits in the database, are served in that
    /// order.
    @Test func waitersOfSeveralProcessesAreServedInArrivalOrder() async throws {
      guard let url = TestDatabase.url else {
        _ = TestDatabase.configuration()
        return
      }
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        _ = try await client.query(
          "CREATE TABLE IF NOT EXISTS ratelimit_test_lease_order (id serial PRIMARY KEY, name text, tag text)")
        let here = PostgresConcurrencyLimiter(
          client: client, name: name, limit: 1, leaseTimeout: .seconds(3), timeout: TestDatabase.timeout)
        let held = try #require(try await here.tryAcquire(for: "k"))
        var workers: [(pid: pid_t?, output: String, errors: String)] = []
        for index in 0..<5 {
          workers.append(Self.start([url, name, "1", "3000", "wait", "\(index)"]))
          try await LeaseTests.waitUntilWaiting(index + 1, name: name, client: client)
        }
        held.release()
        let pids = workers.map(\.pid)
        let statuses = await waitOffThePool { wait(for: pids, atMost: .seconds(60)) }
        for (worker, status) in zip(workers, statuses) { #expect(status == 0, "\(Self.read(worker.errors))") }
        var tags: [String] = []
        let rows = try await client.query(
          "SELECT tag FROM ratelimit_test_lease_order WHERE name = \(name) ORDER BY id")
        for try await tag in rows.decode(String.self) { tags.append(tag) }
        #expect(tags == ["0", "1", "2", "3", "4"])
      }
    }

    /// Four processes deciding all the time see another process's `update` from their next decision.
    @Test func anUpdateIsSeenByEveryProcess() async throws {
      guard let url = TestDatabase.url else {
        _ = TestDatabase.configuration()
        return
      }
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let here = PostgresConcurrencyLimiter(client: client, name: name, limit: 3, timeout: TestDatabase.timeout)
        try await here.prepare()
        let workers = (0..<4).map { _ in Self.start([url, name, "3", "3000", "observe", "4000"]) }
        defer {
          for worker in workers { if let pid = worker.pid { kill(pid, SIGKILL) } }
        }
        for worker in workers {
          #expect(try await Self.waitFor("limit 3", in: worker.output), "\(Self.read(worker.errors))")
        }
        try await here.update(limit: 5)
        let updated = ContinuousClock.now
        for worker in workers { #expect(try await Self.waitFor("limit 5", in: worker.output, atMost: .seconds(5))) }
        #expect(ContinuousClock.now - updated < .seconds(1))
        _ = await waitOffThePool { wait(for: workers.map(\.pid), atMost: .seconds(30)) }
      }
    }
  }
#endif
