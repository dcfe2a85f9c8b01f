#if Postgres
  import PostgresNIO
  import RateLimit
  @testable import RateLimitPostgres
  import Testing

  /// `PostgresRateLimiter` against a real server: the rules at their boundaries, keys, waiting, sweeping.
  @Suite struct PostgresRateLimiterTests {
    @Test func aSlidingWindowGrantsNPerTAndReportsTheWait() async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let limiter = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 2, per: .seconds(10), time: .clock(clock),
          timeout: TestDatabase.timeout)
        try await limiter.prepare()
        #expect(try await limiter.tryAcquire(for: "a"))
        clock.advance(by: .seconds(1))
        #expect(try await limiter.tryAcquire(for: "a"))
        #expect(try await !limiter.tryAcquire(for: "a"))
        #expect(try await limiter.tryAcquire(for: "b"))  // keys never affect each other
        #expect(try await limiter.retryAfter(for: "a") == .seconds(9))
        #expect(try await limiter.retryAfter(3, for: "a") == nil)  // more than the capacity
        #expect(try await limiter.reserve(3, for: "a") == nil)
        let booking = try #require(try await limiter.reserve(for: "a"))
        #expect(booking.time == .seconds(10))
        #expect(booking.delay == .seconds(9))
        #expect(booking.key == "a")
        #expect(try await limiter.reserve(for: "a", within: .seconds(9)) == nil)  // would be at 11 s
        #expect(try await limiter.count() == 2)
        clock.advance(by: .seconds(9))  // exactly T after the first grant: it has left the window
        #expect(try await limiter.retryAfter(for: "a") == .seconds(1))  // the booking at 10 s took its place
      }
    }

    @Test func aTokenBucketRefillsExactlyAndCancelUndoesTheLatestBooking() async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        // 3 per second: one every 333,333,333⅓ ns, rounded up per booking, never drifting.
        let limiter = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 3, per: .seconds(1), burst: 1,
          time: .clock(clock), timeout: TestDatabase.timeout)
        try await limiter.prepare()
        #expect(try await limiter.reserve(for: "k")?.time == .zero)
        #expect(try await limiter.reserve(for: "k")?.time == .nanoseconds(333_333_334))
        let third = try #require(try await limiter.reserve(for: "k"))
        #expect(third.time == .nanoseconds(666_666_667))
        try await third.cancel()  // the latest booking: as if it had never been made
        #expect(try await limiter.retryAfter(for: "k") == .nanoseconds(666_666_667))
        try await third.cancel()  // a second time: nothing more
        #expect(try await limiter.retryAfter(for: "k") == .nanoseconds(666_666_667))
        let fourth = try #require(try await limiter.reserve(for: "k"))
        let fifth = try #require(try await limiter.reserve(for: "k"))
        try await fourth.cancel()  // a later booking was made since: nothing comes back
        #expect(try await limiter.retryAfter(for: "k") == .seconds(1) + .nanoseconds(333_333_334))
        clock.advance(to: fifth.time + .nanoseconds(1))
        try await fifth.cancel()  // after its time: nothing
        #expect(try await limiter.retryAfter(for: "k") == .nanoseconds(333_333_333))
      }
    }

    @Test func keysAreBytesNeverSQL() async throws {
      _ = try await TestDatabase.withClient { client in
        let limiter = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName() + "'; DROP TABLE x; --\u{0}", limit: 1, per: .seconds(60),
          timeout: TestDatabase.timeout)
        try await limiter.prepare()
        let keys = [
          "", "\u{0}", "\u{0}\u{0}", "a\u{0}b", "a", "A", "'", "''", "\"", "\\", "\\\\", "%", "_", "a%", "\n", "\r\n",
          "é", "e\u{301}", "🐘", "日本語", "'; DROP TABLE ratelimit_keys; --", "$1", String(repeating: "x", count: 1_024),
          String(repeating: "é", count: 512),
        ]
        // Byte for byte: "é" and "e\u{301}" are equal Strings but distinct keys.
        #expect(Set(keys.map { Array($0.utf8) }).count == keys.count)
        for key in keys { #expect(try await limiter.tryAcquire(for: key), "\(key.debugDescription)") }
        for key in keys { #expect(try await !limiter.tryAcquire(for: key), "\(key.debugDescription)") }
        #expect(try await limiter.count() == keys.count)
        await #expect(throws: PostgresRateLimiterError.self) {
          try await limiter.tryAcquire(for: String(repeating: "x", count: 1_025))
        }
        do {
          _ = try await limiter.reserve(for: String(repeating: "é", count: 513))
          Issue.record("a key of 1,026 bytes was accepted")
        } catch PostgresRateLimiterError.invalidKey(let reason) {
          #expect(reason.contains("1026"))
        }
      }
    }

    @Test func aWaiterIsResumedAtItsInstantAndACancelledOneGivesItsBookingBack() async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let limiter = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 1, per: .seconds(1), time: .clock(clock),
          timeout: TestDatabase.timeout)
        try await limiter.prepare()
        try await limiter.acquire(for: "k")  // a booking for now returns without an advance
        let first = Task { try await limiter.acquire(for: "k") }
        await clock.waitUntilScheduled(atLeast: 1)
        let second = Task { try await limiter.acquire(for: "k") }
        await clock.waitUntilScheduled(atLeast: 2)
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        // Its booking at 2 s is gone from the database: the next request gets 2 s (a cancelled waiter whose
        // booking stayed would push it to 3 s).
        #expect(try await limiter.retryAfter(for: "k") == .seconds(2))
        clock.advance(by: .seconds(1))
        try await first.value
        #expect(try await limiter.reserve(for: "k")?.time == .seconds(2))

        let cancelled = Task {
          withUnsafeCurrentTask { $0?.cancel() }
          try await limiter.acquire(for: "k")
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        await #expect(throws: PostgresRateLimiterError.self) { try await limiter.acquire(2, for: "k") }
        do {
          try await limiter.acquire(for: "k", within: .milliseconds(500))
          Issue.record("acquire waited beyond maxDelay")
        } catch PostgresRateLimiterError.exceedsMaxDelay(let delay, let maxDelay) {
          #expect(delay == .seconds(2))
          #expect(maxDelay == .milliseconds(500))
        }
      }
    }

    @Test func waitingOnTheDatabasesClockLastsTheDelay() async throws {
      _ = try await TestDatabase.withClient { client in
        let limiter = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 1, per: .milliseconds(200),
          timeout: TestDatabase.timeout)
        try await limiter.prepare()
        let clock = ContinuousClock()
        let start = clock.now
        try await limiter.acquire(for: "k")
        try await limiter.acquire(for: "k")
        try await limiter.acquire(for: "k")
        #expect(clock.now - start >= .milliseconds(400))
        // Database time: nanoseconds since the Unix epoch (after 2026-01-01), bookings exactly T apart.
        let first = try #require(try await limiter.reserve(for: "fresh"))
        let second = try #require(try await limiter.reserve(for: "fresh"))
        #expect(first.time > .seconds(1_767_225_600))
        #expect(first.delay == .zero)
        #expect(second.time == first.time + .milliseconds(200))
        #expect(second.delay > .zero && second.delay <= .milliseconds(200))
      }
    }

    /// A zero window limits nothing and writes nothing; since 4.2 each decision reads the key's block (a block
    /// works on every limiter), so with the database down the policy answers (4.1 asked nothing at all).
    @Test func zeroWindowDoesNotLimitAndWritesNothing() async throws {
      _ = try await TestDatabase.withClient { client async throws in
        let name = TestDatabase.uniqueName()
        let limiter = PostgresRateLimiter(
          client: client, name: name, limit: 2, per: .zero, timeout: TestDatabase.timeout)
        for _ in 0..<100 { #expect(try await limiter.tryAcquire(2, for: "k")) }
        #expect(try await !limiter.tryAcquire(3, for: "k"))
        #expect(try await limiter.reserve(2, for: "k")?.delay == .zero)
        #expect(try await limiter.retryAfter(for: "k") == .zero)
        #expect(try await limiter.decide(2, for: "k").isGranted)
        #expect(try await TestDatabase.rows(of: name, client: client) == 0)
      }
      let down = PostgresRateLimiter(
        client: PostgresClient(
          configuration: .init(host: "127.0.0.1", port: 1, username: "x", password: nil, database: nil, tls: .disable)),
        name: "zero", limit: 2, per: .zero, whenUnavailable: .deny)
      #expect(try await !down.tryAcquire(for: "k"))
    }

    @Test func sweepAndTheAutomaticSweepLeaveRowsForTheActiveKeysOnly() async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let name = TestDatabase.uniqueName()
        let limiter = PostgresRateLimiter(
          client: client, name: name, limit: 1, per: .seconds(60), burst: 2, time: .clock(clock),
          timeout: TestDatabase.timeout)
        try await limiter.prepare()
        try await withThrowingTaskGroup(of: Void.self) { group in
          for worker in 0..<8 {
            group.addTask {
              for key in stride(from: worker, to: 2_500, by: 8) { _ = try await limiter.tryAcquire(for: "\(key)") }
            }
          }
          try await group.waitForAll()
        }
        #expect(try await TestDatabase.rows(of: name, client: client) == 2_500)
        #expect(try await limiter.count() == 2_500)
        clock.advance(by: .seconds(30))  // half refilled: not at rest yet
        try await limiter.sweep()
        #expect(try await TestDatabase.rows(of: name, client: client) == 2_500)
        clock.advance(by: .seconds(30))  // full again: at rest
        #expect(try await limiter.count() == 0)
        try await limiter.sweep()
        #expect(try await TestDatabase.rows(of: name, client: client) == 0)

        // The automatic sweep: 2,500 keys once, a quiet window, then decisions on new keys.
        for key in 0..<2_500 { _ = try await limiter.tryAcquire(for: "old \(key)") }
        clock.advance(by: .seconds(60))
        for key in 0..<5 { _ = try await limiter.tryAcquire(for: "new \(key)") }
        #expect(try await TestDatabase.rows(of: name, client: client) == 5)
        #expect(try await limiter.count() == 5)
      }
    }

    @Test func prepareFromManyClientsAtOnceInAFreshDatabase() async throws {
      guard let configuration = TestDatabase.configuration() else { return }
      let database = "ratelimit_prepare_\(UInt32.random(in: 0...UInt32.max))"
      _ = try await TestDatabase.withClient { client in try await client.query("CREATE DATABASE \(unescaped: database)")
      }
      var configured = configuration
      configured.database = database
      let fresh = configured
      try await withThrowingTaskGroup(of: Bool.self) { group in
        for _ in 0..<6 {
          group.addTask {
            try await TestDatabase.withClient(fresh) { client in
              let limiter = PostgresRateLimiter(
                client: client, name: "n", limit: 100, per: .seconds(1), timeout: TestDatabase.timeout)
              try await limiter.prepare()
              try await limiter.prepare()  // idempotent
              return try await limiter.tryAcquire(for: "k")
            } ?? false
          }
        }
        var granted = 0
        for try await grant in group where grant { granted += 1 }
        #expect(granted == 6)
      }
      _ = try await TestDatabase.withClient { client in
        try await client.query("DROP DATABASE \(unescaped: database) WITH (FORCE)")
      }
    }

    @Test func aStatementErrorIsABugNotAnOutage() async throws {
      guard let configuration = TestDatabase.configuration() else { return }
      let database = "ratelimit_unprepared_\(UInt32.random(in: 0...UInt32.max))"
      _ = try await TestDatabase.withClient { client in try await client.query("CREATE DATABASE \(unescaped: database)")
      }
      var fresh = configuration
      fresh.database = database
      _ = try await TestDatabase.withClient(fresh) { client in
        // Not prepared (4.0.1): the first decision prepares the database itself, and is decided there.
        let limiter = PostgresRateLimiter(
          client: client, name: "n", limit: 1, per: .seconds(1), whenUnavailable: .allow, timeout: TestDatabase.timeout)
        #expect(try await limiter.tryAcquire(for: "k"))
        #expect(try await !limiter.tryAcquire(for: "k"))
        // A function missing once prepared (SQLSTATE 42883) is a bug: thrown as it is, whatever the policy.
        try await client.query("DROP FUNCTION ratelimit_decide_v4")
        await #expect(throws: PSQLError.self) { try await limiter.tryAcquire(for: "another key") }
      }
      _ = try await TestDatabase.withClient { client in
        try await client.query("DROP DATABASE \(unescaped: database) WITH (FORCE)")
      }
    }

    @Test func theInProcessAndTheSharedLimiterServeOneMiddleware() async throws {
      @Sendable func admit(_ limiter: some SharedKeyedLimiter, _ key: String) async throws -> (Bool, Duration?) {
        (try await limiter.tryAcquire(1, for: key), try await limiter.retryAfter(1, for: key))
      }
      let clock = ManualClock()
      let local = KeyedRateLimiter<String>(limit: 1, per: .seconds(60), clock: clock)
      #expect(try await admit(local, "ip") == (true, .seconds(60)))
      _ = try await TestDatabase.withClient { client in
        let shared = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 1, per: .seconds(60), time: .clock(clock),
          timeout: TestDatabase.timeout)
        try await shared.prepare()
        #expect(try await admit(shared, "ip") == (true, .seconds(60)))
        #expect(try await admit(shared, "ip") == (false, .seconds(60)))
      }
    }
  }
#endif
