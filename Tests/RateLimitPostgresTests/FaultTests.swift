#if Postgres
  import Foundation
  import Logging
  import PostgresNIO
  import RateLimit
  @testable import RateLimitPostgres
  import Testing

  /// Issue 28's faults against a real server: a blocked key, the server's settings, a rolling deploy beside 4.0,
  /// and two limiters that disagree on a name.
  @Suite(.serialized) struct FaultTests {
    /// A fresh database on the test server, dropped afterwards.
    static func withFreshDatabase<Result: Sendable>(
      settings: [(String, String)] = [], _ body: @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result? {
      guard let configuration = TestDatabase.configuration() else { return nil }
      let database = "ratelimit_fault_\(UInt32.random(in: 0...UInt32.max))"
      _ = try await TestDatabase.withClient { client in
        try await client.query("CREATE DATABASE \(unescaped: database)")
      }
      var fresh = configuration
      fresh.database = database
      fresh.options.additionalStartupParameters = settings
      return try await TestDatabase.withClient(fresh, body) ?? nil
    }

    /// 28.2: a statement waiting for a key's lock kept its connection after the caller's timeout, so one blocked
    /// key took the pool and denied fresh keys. Now `lock_timeout` ends it within the timeout.
    @Test func aBlockedKeyNeverTakesThePoolFromOtherKeys() async throws {
      guard var configuration = TestDatabase.configuration() else { return }
      configuration.options.maximumConnections = 4
      _ = try await TestDatabase.withClient(configuration) { client in
        let name = TestDatabase.uniqueName()
        let limiter = PostgresRateLimiter(
          client: client, name: name, limit: 1_000, per: .seconds(1), timeout: .milliseconds(300))
        try await limiter.prepare()
        // Another session holds the hot key's lock for 3 s.
        let blocker = Task {
          try await TestDatabase.withClient { other in
            try await other.withConnection { connection in
              _ = try await connection.query(
                "SELECT pg_advisory_lock(ratelimit_lock_key(\(ByteBuffer(string: name)), \(ByteBuffer(string: "hot"))))",
                logger: .init(label: "blocker"))
              try await Task.sleep(for: .seconds(3))
            }
          }
        }
        try await Task.sleep(for: .milliseconds(300))
        let unavailable = try await withThrowingTaskGroup(of: Bool.self) { group in
          for _ in 0..<12 {
            group.addTask {
              do {
                _ = try await limiter.tryAcquire(for: "hot")
                return false
              } catch PostgresRateLimiterError.unavailable { return true }
            }
          }
          return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(unavailable == 12)
        // The blocked statements gave their connections back: every fresh key is decided by the database.
        let clock = ContinuousClock()
        for index in 0..<20 {
          let start = clock.now
          #expect(try await limiter.tryAcquire(for: "fresh \(index)"))
          #expect(clock.now - start < .milliseconds(300))
        }
        blocker.cancel()
        _ = try? await blocker.value
      }
    }

    /// 28.4: with `lock_timeout` set and with serializable transactions by default, hot-key decisions threw raw
    /// 55P03 and 40001. Now they are retried or answered by the policy, and the rule holds.
    @Test(arguments: [
      [("lock_timeout", "1ms")], [("default_transaction_isolation", "serializable")],
      [("default_transaction_isolation", "repeatable read")],
    ])
    func theServersSettingsNeverThrowRaw(settings: [(String, String)]) async throws {
      _ = try await Self.withFreshDatabase(settings: settings) { client in
        let limiter = PostgresRateLimiter(
          client: client, name: "hot", limit: 50, per: .seconds(3_600), whenUnavailable: .deny,
          timeout: .seconds(2))
        try await limiter.prepare()
        let granted = try await withThrowingTaskGroup(of: Int.self) { group in
          for _ in 0..<8 {
            group.addTask {
              var granted = 0
              for _ in 0..<25 {
                do {
                  if try await limiter.tryAcquire(for: "k") { granted += 1 }
                } catch {
                  Issue.record("\(String(reflecting: error))")
                }
              }
              return granted
            }
          }
          return try await group.reduce(0, +)
        }
        #expect(granted <= 50)
        #expect(granted >= 40, "the database answered too few: \(granted) of 50")
      }
    }

    /// 28.5: 4.0's `prepare()` dropped a newer schema (every key reset), and a newer one dropped 4.0's. Now
    /// 4.0 and this release run side by side on one database, both ways, and keep every key's state.
    @Test func fourPointZeroAndThisReleaseSideBySide() async throws {
      _ = try await Self.withFreshDatabase { client in
        func prepare40() async throws { try await client.query(PostgresQuery(unsafeSQL: Release40Schema.prepare)) }
        func decide40(_ key: String, at now: Int64) async throws -> Bool {
          let query: PostgresQuery = """
            SELECT o_booked FROM ratelimit_decide(\(ByteBuffer(string: "api")), \(ByteBuffer(string: key)), \
            \(Int64(1)), \(Int64(10_000_000_000)), \(Int64?.none), \(Int64(1)), \(now), \(Int64(0)), \
            \(Int32(0)), \(Int32(0)))
            """
          for try await booked in try await client.query(query).decode(Bool.self) { return booked }
          return false
        }
        let clock = ManualClock()
        clock.advance(to: .seconds(100))
        let limiter = PostgresRateLimiter(
          client: client, name: "api", limit: 1, per: .seconds(10), time: .clock(clock), timeout: TestDatabase.timeout)
        // 4.0 first: it grants "old" at 100 s.
        try await prepare40()
        #expect(try await decide40("old", at: 100_000_000_000))
        // This release migrates in place: "old" is still refused until 110 s.
        try await limiter.prepare()
        #expect(try await limiter.retryAfter(for: "old") == .seconds(10))
        #expect(try await limiter.tryAcquire(for: "new"))
        // A 4.0 instance restarts: its prepare() leaves the newer schema and every key alone...
        try await prepare40()
        #expect(try await limiter.retryAfter(for: "old") == .seconds(10))
        #expect(try await limiter.retryAfter(for: "new") == .seconds(10))
        // ...and its decisions still work against it, sharing the keys.
        #expect(try await !decide40("new", at: 101_000_000_000))
        #expect(try await decide40("other", at: 101_000_000_000))
        #expect(try await !limiter.tryAcquire(for: "other"))
        // This release preparing again is idempotent.
        try await limiter.prepare()
        #expect(try await limiter.retryAfter(for: "old") == .seconds(10))
      }
    }

    /// Issue 40 item 6: a hot key's grant rewrote its bookings compressed (TOAST's pglz, about 2 µs a booking: 7 ms a
    /// grant at 3,000). From release 13 they are stored as they are, in a fresh database and in one migrated from
    /// 4.0 alike: a key holding 2,000 bookings takes at least 8 bytes for each instant.
    @Test func aKeysBookingsAreStoredUncompressedFromEveryRelease() async throws {
      for from40 in [false, true] {
        _ = try await Self.withFreshDatabase { client in
          if from40 { try await client.query(PostgresQuery(unsafeSQL: Release40Schema.prepare)) }
          let clock = ManualClock()
          let limiter = PostgresRateLimiter(
            client: client, name: "hot", limit: 100_000, per: .seconds(3_600), time: .clock(clock),
            timeout: TestDatabase.timeout)
          try await limiter.prepare()
          let storage = try await client.query(
            """
            SELECT string_agg(attname || '=' || attstorage::text, ',' ORDER BY attname) FROM pg_attribute
            WHERE attrelid = 'ratelimit_keys'::regclass AND attname IN ('times', 'permits', 'ids', 'cum')
            """)
          for try await columns in storage.decode(String.self) {
            #expect(columns == "cum=e,ids=e,permits=e,times=e", "from 4.0: \(from40)")
          }
          for _ in 0..<2_000 {
            clock.advance(by: .milliseconds(1))
            #expect(try await limiter.tryAcquire(for: "k"))
          }
          // Release 14: in the key's row and its chunks.
          let sizes = try await client.query(
            """
            SELECT sum(array_length(times, 1))::integer, sum(pg_column_size(times))::integer FROM (
                SELECT times FROM ratelimit_keys
                WHERE name = \(ByteBuffer(string: "hot")) AND key = \(ByteBuffer(string: "k"))
                UNION ALL SELECT times FROM ratelimit_chunks
                WHERE name = \(ByteBuffer(string: "hot")) AND key = \(ByteBuffer(string: "k"))) AS held
            """)
          for try await (count, size) in sizes.decode((Int32, Int32).self) {
            #expect(count == 2_000)
            #expect(size >= 8 * 2_000, "from 4.0: \(from40)")
          }
        }
      }
    }

    /// 28.7: limiters sharing a name with different rules or parameters mixed in one row. 4.0 refused the second
    /// with a trap naming both; SPEC 4.3.1 corrects it (a trap serving a request, a crash loop in a rolling
    /// restart): the second decides by the stored rule, so the row still has one rule, and says so in a warning.
    @Test func aNameKeepsOneRuleAndItsParameters() async throws {
      let name = TestDatabase.uniqueName()
      _ = try await TestDatabase.withClient { client in
        let first = PostgresRateLimiter(client: client, name: name, limit: 1, per: .seconds(10))
        try await first.prepare()
        // The same parameters again: fine.
        try await PostgresRateLimiter(client: client, name: name, limit: 1, per: .seconds(10)).prepare()
        let handler = RecordingLogHandler()
        let second = PostgresRateLimiter(
          client: client, name: name, limit: 5, per: .seconds(10), logger: Logger(label: "test") { _ in handler })
        try await second.prepare()
        #expect(second.limit == 1)
        #expect(try await second.tryAcquire(for: "k"))
        #expect(try await !first.tryAcquire(for: "k"))
        #expect(try await !second.tryAcquire(for: "k"))
        let warnings = handler.messages.filter { $0.0 == .warning }.map(\.1)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("a sliding window of 1 per 10.0 seconds") == true, "\(warnings)")
        #expect(warnings.first?.contains("a sliding window of 5 per 10.0 seconds") == true, "\(warnings)")
      }
    }
  }
#endif

#if Postgres
  extension FaultTests {
    /// 28.8: decisions that timed out while the database was frozen, answered by the policy, were still booked
    /// when it resumed: charged twice. Now a late answer's booking is taken back.
    @Test func aDecisionThePolicyAnsweredNeverAlsoTakesEffect() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let limiter = PostgresRateLimiter(
            client: client, name: "frozen", limit: 10, per: .seconds(600), whenUnavailable: .allow,
            timeout: .milliseconds(250), localRefusals: false)
          try await limiter.prepare()
          #expect(try await limiter.tryAcquire(for: "k"))
          await server("freeze")
          for _ in 0..<4 { #expect(try await limiter.tryAcquire(for: "k")) }  // the policy's answers
          await server("thaw")
          // The frozen statements run now; their grants are taken back as they arrive.
          try await Task.sleep(for: .seconds(2))
          let decision = try await limiter.decide(for: "k")
          #expect(decision.isGranted && !decision.isFallback)
          #expect(decision.remaining == 8, "phantom bookings: \(8 - decision.remaining)")
        }
      }
    }
  }
#endif

#if Postgres
  extension FaultTests {
    /// A booking revoked under `.clock(c)` (its decision timed out, then ran) was given back at the database's
    /// clock: the key's latest "now" became today's date in nanoseconds, decades past `c`, and its bookings all
    /// left the window at once. Now a revocation leaves the key's "now" as it was.
    @Test func aRevocationKeepsTheKeysClock() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let clock = ManualClock()
          let limiter = PostgresRateLimiter(
            client: client, name: "revoked", limit: 2, per: .seconds(10), time: .clock(clock), whenUnavailable: .allow,
            timeout: .milliseconds(250), localRefusals: false)
          try await limiter.prepare()
          #expect(try await limiter.tryAcquire(for: "k"))
          await server("freeze")
          #expect(try await limiter.tryAcquire(for: "k"))  // the policy's answer
          await server("thaw")
          // The frozen statement runs now, and its booking is revoked.
          for _ in 0..<100 where !limiter.store.revocations.isIdle { try await Task.sleep(for: .milliseconds(100)) }
          #expect(limiter.store.revocations.isIdle)
          let decision = try await limiter.decide(for: "k")
          #expect(decision.isGranted)
          #expect(decision.remaining == 0)  // the grant at 0 and this one, both in (-10 s, 0]
          #expect(decision.resetAfter == .seconds(10))
        }
      }
    }

    /// 28.3: a decision swept other keys' rows at rest (deleting them, row-locked to its end) before it wrote its
    /// own row, so two decisions that swept each other's keys waited for each other: 40P01 after a second. A
    /// session here is the other decision, in that old order: it deletes k1's row at rest, then writes k2's.
    /// Now a decision writes its own row before it sweeps, so it never holds k2's row while waiting for k1's.
    @Test func aSweepNeverHoldsAnotherKeysRowWhileItWaits() async throws {
      _ = try await Self.withFreshDatabase { client in
        let clock = ManualClock()
        let limiter = PostgresRateLimiter(
          client: client, name: "sweep", limit: 1, per: .seconds(1), time: .clock(clock), timeout: .seconds(10))
        try await limiter.prepare()
        #expect(try await limiter.tryAcquire(for: "k1"))
        #expect(try await limiter.tryAcquire(for: "k2"))
        clock.advance(by: .seconds(10))  // both rows at rest, and the next decision's sweep due
        let (name, k1, k2) = (ByteBuffer(string: "sweep"), ByteBuffer(string: "k1"), ByteBuffer(string: "k2"))
        let deadlocks = "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"
        let deadlocksBefore = try await Self.integer(deadlocks, client)
        // One connection of the pool; the limiter and the watch below take others.
        try await client.withConnection { session in
          let logger = Logger(label: "other decision")
          for try await _ in try await session.query("BEGIN", logger: logger) {}
          // Shorter than PostgreSQL's deadlock check: a wait shows as 55P03 here, not as a deadlock.
          for try await _ in try await session.query("SET LOCAL lock_timeout = '500ms'", logger: logger) {}
          let sweep: PostgresQuery = "DELETE FROM ratelimit_keys WHERE name = \(name) AND key = \(k1)"
          for try await _ in try await session.query(sweep, logger: logger) {}
          let decision = Task { try await limiter.tryAcquire(for: "k1") }
          // The decision waits for k1's row.
          while try await Self.integer("SELECT count(*) FROM pg_locks WHERE NOT granted", client) == 0 {
            try await Task.sleep(for: .milliseconds(5))
          }
          let write: PostgresQuery = "UPDATE ratelimit_keys SET latest = latest WHERE name = \(name) AND key = \(k2)"
          for try await _ in try await session.query(write, logger: logger) {}
          for try await _ in try await session.query("COMMIT", logger: logger) {}
          #expect(try await decision.value)
        }
        #expect(try await Self.integer(deadlocks, client) == deadlocksBefore)
      }
    }

    static func integer(_ sql: String, _ client: PostgresClient) async throws -> Int64 {
      for try await value in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(Int64.self) { return value }
      return 0
    }

    /// Every operation, as the first call of a limiter on a database without the schema, prepares it itself
    /// (SPEC 4.0.1: "the limiter prepares itself once the database answers"), for both rules. `peek`, `count()`
    /// and `sweep()` threw PostgresNIO's error instead (a missing function or table).
    @Test(arguments: [false, true]) func everyOperationPreparesTheSchemaItself(bucket: Bool) async throws {
      let operations: [(String, @Sendable (PostgresRateLimiter) async throws -> Void)] = [
        ("tryAcquire", { _ = try await $0.tryAcquire(for: "k") }),
        ("reserve", { _ = try await $0.reserve(for: "k") }),
        ("acquire", { try await $0.acquire(for: "k") }),
        ("retryAfter", { _ = try await $0.retryAfter(for: "k") }),
        ("decide", { _ = try await $0.decide(for: "k") }),
        ("peek", { _ = try await $0.peek(for: "k") }),
        ("charge", { _ = try await $0.charge(1, for: "k") }),
        ("refund", { _ = try await $0.refund(1, for: "k") }),
        ("reset", { try await $0.reset("k") }),
        ("block", { try await $0.block("k", for: .seconds(1)) }),
        (
          "update",
          { limiter in
            if bucket {
              try await limiter.update(limit: 3, per: .seconds(60), burst: 3)
            } else {
              try await limiter.update(limit: 3, per: .seconds(60))
            }
          }
        ),
        ("count", { _ = try await $0.count() }),
        ("sweep", { try await $0.sweep() }),
      ]
      for (operation, body) in operations {
        _ = try await Self.withFreshDatabase { client in
          let limiter =
            bucket
            ? PostgresRateLimiter(
              client: client, name: "api", limit: 2, per: .seconds(60), burst: 2, timeout: TestDatabase.timeout)
            : PostgresRateLimiter(
              client: client, name: "api", limit: 2, per: .seconds(60), timeout: TestDatabase.timeout)
          do {
            try await body(limiter)
          } catch {
            Issue.record("\(operation) first: \(String(reflecting: error))")
          }
          // Prepared: the schema's decisions answer.
          let granted = try await limiter.tryAcquire(for: "other")
          #expect(granted, "after \(operation)")
        }
      }
    }
  }
#endif
