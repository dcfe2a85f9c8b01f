#if Postgres
  import Foundation
  import Logging
  import PostgresNIO
  import RateLimit
  @testable import RateLimitPostgres
  import Testing

  /// A `PostgresConcurrencyLimiter` and the client under it: a pool of one connection (listening for other
  /// processes' releases must never take the connection its own statements need), and a client shut down (its
  /// background work stops, rather than trying a closed pool until the leases would have expired).
  @Suite struct LeaseClientTests {
    @Test(.timeLimit(.minutes(1)))
    func aPoolOfOneConnectionServesLeasesAndWaiters() async throws {
      guard var configuration = TestDatabase.configuration() else { return }
      configuration.options.maximumConnections = 1
      configuration.options.minimumConnections = 0
      _ = try await TestDatabase.withClient(configuration) { client in
        let name = TestDatabase.uniqueName()
        let limiter = PostgresConcurrencyLimiter(
          client: client, name: name, limit: 1, leaseTimeout: .seconds(30), timeout: .seconds(2))
        let clock = ContinuousClock()
        let start = clock.now
        let held = try #require(try await limiter.tryAcquire(for: "k"))
        #expect(try await limiter.inUse(for: "k") == 1)
        // A waiter of this process: served when the holder releases, long before its check period (10 s).
        let waiter = Task { try await limiter.acquire(for: "k", within: .seconds(20)) }
        try await Task.sleep(for: .milliseconds(300))
        held.release()
        let lease = try await waiter.value
        #expect(try await limiter.inUse(for: "k") == 1)
        lease.release()
        #expect(try await limiter.inUse(for: "k") == 0)
        #expect(clock.now - start < .seconds(5))
      }
    }

    /// A pool of one connection and the default timeout (250 ms): looking for a connection to spare for
    /// listening never holds the only one for longer than a decision may wait, so no decision times out while
    /// the database answers. Before, the listener held it for a second at each try (at `prepare()`, then 1 s,
    /// 2 s, … later): the decisions behind it threw "did not answer within 0.25 seconds" (the Postgres
    /// benchmark's refused hot key, on its pool of one).
    @Test(.timeLimit(.minutes(1)))
    func aPoolOfOneConnectionNeverTimesADecisionOutForListening() async throws {
      guard var configuration = TestDatabase.configuration() else { return }
      configuration.options.maximumConnections = 1
      configuration.options.minimumConnections = 0
      _ = try await TestDatabase.withClient(configuration) { client in
        let rate = PostgresRateLimiter(client: client, name: TestDatabase.uniqueName(), limit: 3, per: .seconds(60))
        let leases = PostgresConcurrencyLimiter(client: client, name: TestDatabase.uniqueName(), limit: 1)
        try await rate.prepare()
        // Through the listener's first two tries (at once, and a second later): every decision answered.
        let start = ContinuousClock.now
        var (granted, refused, leased) = (0, 0, 0)
        while ContinuousClock.now - start < .milliseconds(2_500) {
          if try await rate.tryAcquire(for: "k") { granted += 1 } else { refused += 1 }
          if let lease = try await leases.tryAcquire(for: "k") {
            leased += 1
            lease.release()
          }
          try await Task.sleep(for: .milliseconds(20))
        }
        #expect(granted == 3 && refused > 0 && leased > 0, "granted \(granted), refused \(refused), leased \(leased)")
      }
    }

    @Test(.timeLimit(.minutes(1)))
    func aClientShutDownStopsTheLimitersBackgroundWork() async throws {
      guard let configuration = TestDatabase.configuration() else { return }
      let client = PostgresClient(configuration: configuration)
      let running = Task { await client.run() }
      let handler = RecordingLogHandler()
      let limiter = PostgresConcurrencyLimiter(
        client: client, name: TestDatabase.uniqueName(), limit: 2, leaseTimeout: .seconds(4), timeout: .seconds(1),
        logger: Logger(label: "test") { _ in handler })
      let first = try #require(try await limiter.tryAcquire(for: "k"))
      let second = try #require(try await limiter.tryAcquire(for: "k"))
      running.cancel()
      while (try? await client.query("SELECT 1")) != nil { try await Task.sleep(for: .milliseconds(10)) }
      let shutDown = ContinuousClock.now
      first.release()
      // Within a renewal period (1 s) and a release's try: nothing queued, nothing sending, nothing renewing,
      // long before the leases would have expired (4 s).
      var idle = false
      var seen = ""
      while !idle && ContinuousClock.now - shutDown < .seconds(3) {
        try await Task.sleep(for: .milliseconds(50))
        let releases = limiter.store.releases.isIdle
        let held = limiter.store.held.withLock { $0.leases.isEmpty && $0.renewing == nil }
        idle = releases && held
        seen = "releases idle \(releases), renewals idle \(held)"
      }
      #expect(idle, "\(seen)")
      // A client shut down is not an outage of the database: nothing at `warning` or above.
      #expect(handler.messages.filter { $0.0 >= .warning }.map(\.1) == [])
      withExtendedLifetime(second) {}
    }

    /// A process about to exit sends its queued releases with `inUse(for:)` of any key, then shuts its client
    /// down: another process finds nothing held, long before `leaseTimeout` (60 s).
    @Test(.timeLimit(.minutes(1)))
    func inUseSendsTheReleasesOfAProcessAboutToExit() async throws {
      guard let configuration = TestDatabase.configuration() else { return }
      let name = TestDatabase.uniqueName()
      let client = PostgresClient(configuration: configuration)
      let running = Task { await client.run() }
      let limiter = PostgresConcurrencyLimiter(
        client: client, name: name, limit: 3, leaseTimeout: .seconds(60), timeout: TestDatabase.timeout)
      var leases: [Lease] = []
      for _ in 0..<3 { leases.append(try #require(try await limiter.tryAcquire(for: "k"))) }
      for lease in leases { lease.release() }
      #expect(try await limiter.inUse(for: "another key") == 0)
      running.cancel()
      _ = try await TestDatabase.withClient { other in
        let there = PostgresConcurrencyLimiter(
          client: other, name: name, limit: 3, leaseTimeout: .seconds(60), timeout: TestDatabase.timeout)
        let held = try await there.inUse(for: "k")
        #expect(held == 0)
      }
    }
  }
#endif
