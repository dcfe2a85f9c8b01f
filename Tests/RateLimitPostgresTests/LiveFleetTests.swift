#if Postgres
  import Foundation
  import Logging
  import PostgresNIO
  import RateLimit
  @testable import RateLimitPostgres
  import Testing

  /// SPEC 4.3.1, "operating a live fleet, exactly": issue 53's findings on one process's limiters (the fleet tests
  /// with several OS processes are `FleetUpdateTests` and `BurstFleetTests`). Each test failed first on 8a38a49.
  @Suite struct LiveFleetTests {
    /// The limiter's tables, as an operator's `LOCK TABLE` or a migration holds them.
    static let tables = "ratelimit_keys, ratelimit_names, ratelimit_revoked, ratelimit_chunks"

    /// Item 14 (SPEC 4.0.1: "a late answer is always taken back"): a decision whose statement waited behind
    /// another session's `LOCK TABLE` was answered by the policy in time, and booked once the lock was released:
    /// its statement read the stored rule in subqueries, whose table was locked before the function could set
    /// `lock_timeout`, so it waited unbounded, and its revocation, tried a second apart, came too late.
    @Test func aDecisionBehindATableLockIsNeverBookedLate() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, _ in
        try await TestDatabase.withClient(configuration) { client in
          try await TestDatabase.withClient(configuration) { other in
            let limiter = PostgresRateLimiter(
              client: client, name: "victim", limit: 1, per: .seconds(60), whenUnavailable: .deny,
              timeout: .milliseconds(150))
            try await limiter.prepare()
            // Warm: the decision's statement is prepared on the connection (PostgresNIO's prepared statements).
            #expect(try await limiter.tryAcquire(for: "warm"))
            let lock = Task {
              _ = try await other.query(
                "DO $$ BEGIN LOCK TABLE \(unescaped: Self.tables) IN ACCESS EXCLUSIVE MODE; PERFORM pg_sleep(1.5); END $$"
              )
            }
            try await Self.waitUntilLocked(on: client)
            let started = ContinuousClock.now
            let denied = try await limiter.decide(for: "victim")
            #expect(!denied.isGranted && denied.isFallback)
            #expect(ContinuousClock.now - started < .milliseconds(1_000))
            try await lock.value
            // Every statement that waited behind the lock has run (none waits for a lock any more), and every
            // revocation is sent: the key's one permit is free, to a limiter of another client.
            try await Self.waitUntilNoneWaitsForALock(on: other)
            let fresh = PostgresRateLimiter(
              client: other, name: "victim", limit: 1, per: .seconds(60), timeout: TestDatabase.timeout)
            #expect(try await fresh.peek(for: "victim").isGranted)
            for _ in 0..<1_000 where !limiter.store.revocations.isIdle { try await Task.sleep(for: .milliseconds(10)) }
            #expect(try await fresh.decide(for: "victim").isGranted)
          }
        }
      }
    }

    /// Polls until another session holds `ratelimit_names` in ACCESS EXCLUSIVE mode (at most 10 s).
    static func waitUntilLocked(on client: PostgresClient) async throws {
      for _ in 0..<1_000 {
        let rows = try await client.query(
          """
          SELECT count(*)::integer FROM pg_locks
          WHERE relation = 'ratelimit_names'::regclass AND mode = 'AccessExclusiveLock' AND granted
          """)
        for try await count in rows.decode(Int32.self) where count > 0 { return }
        try await Task.sleep(for: .milliseconds(10))
      }
      Issue.record("the table lock was never taken")
    }

    /// Polls until no session of the server waits for a lock (at most 10 s).
    static func waitUntilNoneWaitsForALock(on client: PostgresClient) async throws {
      for _ in 0..<1_000 {
        let rows = try await client.query(
          "SELECT count(*)::integer FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
        for try await count in rows.decode(Int32.self) where count == 0 { return }
        try await Task.sleep(for: .milliseconds(10))
      }
      Issue.record("a session still waits for a lock")
    }

    /// Item 1's cause: the probe that ends an outage's back-off was refused for one key's lock (55P03, another
    /// session held it), which neither ended the outage nor failed the probe: every later decision, on every
    /// key, went to the policy until the process restarted (a fallback refusing a daily key for a day).
    @Test func aProbeRefusedForOneKeysLockEndsTheOutage() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let name = "probed"
          let limiter = PostgresRateLimiter(
            client: client, name: name, limit: 100, per: .seconds(60), whenUnavailable: .deny,
            timeout: .milliseconds(300))
          try await limiter.prepare()
          await server("stop")
          // Two keys that cannot be decided: an outage, whether the pool answers "refused" or times out.
          #expect(try await limiter.decide(for: "a").isFallback)
          #expect(try await limiter.decide(for: "c").isFallback)
          await server("start")
          // The limiter's client connects again (a statement of the test's own, not the limiter's).
          for _ in 0..<500 where (try? await client.query("SELECT 1")) == nil {
            try await Task.sleep(for: .milliseconds(10))
          }
          try await TestDatabase.withClient(configuration) { other in
            try await other.withConnection { connection in
              let key = "held"
              _ = try await connection.query(
                "SELECT pg_advisory_lock(ratelimit_lock_key(\(ByteBuffer(string: name)), \(ByteBuffer(string: key))))",
                logger: Logger(label: "test"))
              // The back-off over, the next decision probes: on the held key, refused for its lock.
              for _ in 0..<500 where limiter.store.outage.isBackingOff(now: .now) {
                try await Task.sleep(for: .milliseconds(10))
              }
              #expect(try await limiter.decide(for: key).isFallback)
              _ = try await connection.query("SELECT pg_advisory_unlock_all()", logger: Logger(label: "test"))
            }
          }
          // The database answered that probe: the other keys go to it again.
          let answered = try await limiter.decide(for: "b")
          #expect(!answered.isFallback && answered.isGranted && answered.remaining == 99)
        }
      }
    }

    /// Item 5 (SPEC 4.3.1, "preparing is not an outage"): 200 first decisions of a fresh process on a healthy
    /// database are answered by the database (each prepared on its own, one at a time behind the schema's lock,
    /// past the timeout, and the policy answered: 165 to 200 granted of a fleet-wide 100).
    @Test func theFirstBurstOfAFreshProcessIsAnsweredByTheDatabase() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, _ in
        // Another process has made the schema (a fleet's database); this one starts now, with a client of its own.
        try await TestDatabase.withClient(configuration) { other in
          try await PostgresRateLimiter(client: other, name: "other", limit: 1, per: .seconds(1)).prepare()
        }
        try await TestDatabase.withClient(configuration) { client in
          let limiter = PostgresRateLimiter(
            client: client, name: "fresh", limit: 100, per: .seconds(86_400),
            whenUnavailable: .fallback(KeyedRateLimiter(limit: 1_000, per: .seconds(86_400))),
            timeout: .milliseconds(250))
          let decisions = try await withThrowingTaskGroup(of: RateLimitDecision.self) { group in
            for _ in 0..<200 { group.addTask { try await limiter.decide(for: "burst") } }
            return try await group.reduce(into: []) { $0.append($1) }
          }
          #expect(decisions.filter(\.isFallback).count == 0)
          #expect(decisions.filter(\.isGranted).count == 100)
        }
      }
    }

    /// Item 3 (SPEC 4.3.1, "operations reach every process's local refusals"): another process's `reset`,
    /// `refund`, `update`, and a `reset` that lifts its `block`, end this process's local refusal of the key (of the
    /// name for `update`) within a round trip of their commit; 4.2 kept refusing until the refusal's instant (60 s
    /// here, up to a day in the report).
    @Test(arguments: ["reset", "refund", "update", "unblock"]) func anotherProcesssOperationEndsALocalRefusal(
      _ operation: String
    ) async throws {
      _ = try await TestDatabase.withClient { client in
        try await TestDatabase.withClient { otherClient in
          let name = TestDatabase.uniqueName()
          let here = PostgresRateLimiter(
            client: client, name: name, limit: 2, per: .seconds(60), timeout: TestDatabase.timeout)
          let other = PostgresRateLimiter(
            client: otherClient, name: name, limit: 2, per: .seconds(60), timeout: TestDatabase.timeout)
          try await other.prepare()
          if operation == "unblock" { try await other.block("k", for: .seconds(3_600)) }
          while try await here.tryAcquire(for: "k") {}
          // Refused here, without a round trip, for up to an hour.
          let sent = here.store.coalescer.counts.statements
          #expect(try await !here.tryAcquire(for: "k"))
          #expect(here.store.coalescer.counts.statements == sent)
          switch operation {
          case "refund": try await other.refund(1, for: "k")
          case "update": try await other.update(limit: 3, per: .seconds(60))
          default: try await other.reset("k")
          }
          // Within a round trip of the commit: a statement of this process's own on the same database, then
          // at most a second for the notification.
          let started = ContinuousClock.now
          while here.store.refusalInForce(for: ByteBuffer(string: "k")) != nil,
            ContinuousClock.now - started < .seconds(5)
          {
            try await Task.sleep(for: .milliseconds(5))
          }
          #expect(ContinuousClock.now - started < .seconds(1))
          let decision = try await here.decide(for: "k")
          #expect(decision.isGranted, "\(operation): \(decision)")
          if operation == "update" { #expect(decision.limit == 3) }
        }
      }
    }

    /// SPEC 4.3.1: "a process that cannot listen keeps no local refusal until it listens again": its listening
    /// connection ended (by the server), this process asks the database for a refused key, until it listens again.
    @Test func aProcessThatCannotListenKeepsNoLocalRefusal() async throws {
      // A server of its own: the other tests' listeners stay up.
      _ = try await TestDatabase.withPrivateServer { configuration, _ in
        try await TestDatabase.withClient(configuration) { client in
          try await TestDatabase.withClient(configuration) { admin in
            let name = "listened"
            let here = PostgresRateLimiter(
              client: client, name: name, limit: 1, per: .seconds(60), timeout: TestDatabase.timeout)
            #expect(try await here.tryAcquire(for: "k"))
            #expect(try await !here.tryAcquire(for: "k"))
            #expect(here.store.refusalInForce(for: ByteBuffer(string: "k")) != nil)
            // The server ends every listening session of this database's clients but the admin's.
            _ = try await admin.query(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"
            )
            var forgotten = false
            for _ in 0..<500 where !forgotten {
              forgotten = here.store.refusalInForce(for: ByteBuffer(string: "k")) == nil
              if !forgotten { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(forgotten)
            let sent = here.store.coalescer.counts.statements
            #expect(try await !here.tryAcquire(for: "k"))
            #expect(here.store.coalescer.counts.statements == sent + 1, "asked the database")
          }
        }
      }
    }

    /// Item 6 (SPEC 4.3.1, "an operation that threw has not happened"): `charge(5)`, `block(60 s)` and `update`
    /// sent to a frozen server threw `.unavailable`, and applied once it resumed (a caller that retries charges
    /// twice). Now each runs after its deadline and changes nothing.
    @Test func anOperationThatThrewNeverTakesEffectLater() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let limiter = PostgresRateLimiter(
            client: client, name: "operated", limit: 10, per: .seconds(600), timeout: .milliseconds(250),
            localRefusals: false)
          #expect(try await limiter.decide(for: "k").remaining == 9)
          await server("freeze")
          for operation in ["charge", "block", "update"] {
            await #expect(throws: PostgresRateLimiterError.self, "\(operation)") {
              switch operation {
              case "charge": try await limiter.charge(5, for: "k")
              case "block": try await limiter.block("k", for: .seconds(60))
              default: try await limiter.update(limit: 20, per: .seconds(600))
              }
            }
          }
          await server("thaw")
          // The frozen statements run now (none waits any more, none is active but the test's).
          try await TestDatabase.withClient(configuration) { other in
            for _ in 0..<1_000 {
              let rows = try await other.query(
                "SELECT count(*)::integer FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()")
              var active: Int32 = 1
              for try await count in rows.decode(Int32.self) { active = count }
              if active == 0 { break }
              try await Task.sleep(for: .milliseconds(10))
            }
            // Seen from another client: one booking, no block, the rule unchanged.
            let fresh = PostgresRateLimiter(
              client: other, name: "operated", limit: 10, per: .seconds(600), timeout: TestDatabase.timeout)
            let after = try await fresh.peek(for: "k")
            #expect(after.isGranted && after.remaining == 8 && after.limit == 10, "\(after)")
          }
        }
      }
    }

    /// The review of 4.3.1: a late booking revoked, or a refused request's grant taken back, frees permits that
    /// another process may refuse locally: both notify, so that process answers as the database does.
    @Test(arguments: ["revoke", "undo"]) func aGrantTakenBackEndsAnotherProcesssRefusal(_ how: String) async throws {
      _ = try await TestDatabase.withClient { client in
        try await TestDatabase.withClient { otherClient in
          let name = TestDatabase.uniqueName()
          let here = PostgresRateLimiter(
            client: client, name: name, limit: 1, per: .seconds(60), timeout: TestDatabase.timeout)
          let other = PostgresRateLimiter(
            client: otherClient, name: name, limit: 1, per: .seconds(60), timeout: TestDatabase.timeout)
          let made = try await other.decideUndoably(1, for: "k")
          #expect(made.decision.isGranted)
          #expect(try await !here.tryAcquire(for: "k"))
          #expect(here.store.refusalInForce(for: ByteBuffer(string: "k")) != nil)
          if how == "undo" {
            _ = await made.undo()
          } else {
            _ = try await otherClient.query(
              """
              SELECT ratelimit_revoke_v4(\(ByteBuffer(string: name)), \(ByteBuffer(string: "k")), \(Int64(1)), \
              \(Int64(60_000_000_000)), \(Int64?.none), \
              (SELECT ids[1] FROM ratelimit_keys WHERE name = \(ByteBuffer(string: name)) AND key = \(ByteBuffer(string: "k"))), \
              '1s')
              """)
          }
          let started = ContinuousClock.now
          while here.store.refusalInForce(for: ByteBuffer(string: "k")) != nil,
            ContinuousClock.now - started < .seconds(5)
          {
            try await Task.sleep(for: .milliseconds(5))
          }
          #expect(ContinuousClock.now - started < .seconds(1))
          #expect(try await here.tryAcquire(for: "k"))
        }
      }
    }

    /// The review of 4.3.1: a 4.2 process beside release 15 still operates keys (`ratelimit_operate_v1`,
    /// `ratelimit_update_v1`, which release 15 first dropped: 42883 on every 4.2 `charge`, `block`, `update`).
    @Test func aFourPointTwoProcessStillOperates() async throws {
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let limiter = PostgresRateLimiter(
          client: client, name: name, limit: 5, per: .seconds(60), timeout: TestDatabase.timeout)
        try await limiter.prepare()
        let (nameBytes, key) = (ByteBuffer(string: name), ByteBuffer(string: "k"))
        _ = try await client.query(
          """
          SELECT * FROM ratelimit_operate_v1(\(nameBytes), \(key), \(Int64(5)), \(Int64(60_000_000_000)), \
          \(Int64?.none), \(Int32(4)), \(Int64(60_000_000_000)), \(Int64?.none), '1s')
          """)
        #expect(try await !limiter.tryAcquire(for: "k"))
        _ = try await client.query(
          """
          SELECT ratelimit_update_v1(\(nameBytes), \(Int64(7)), \(Int64(60_000_000_000)), \(Int64?.none), \
          \(Int64?.none), '1s')
          """)
        #expect(try await limiter.decide(for: "other").limit == 7)
      }
    }

    /// A 4.3 process beside this version during a rolling deploy: its statements, as it sends them, read the key's
    /// effective window and the stored rule through `ratelimit_effective_v1` and `ratelimit_rule_v1`, which this
    /// version's decision answers itself (the review of the one-pass decision: with the two dropped, every 4.3
    /// decision failed with 42883, which is thrown whatever the policy).
    @Test func aFourPointThreeProcessStillDecides() async throws {
      let decide43 = """
        SELECT o_time, o_now, o_id, o_booked, o_swept, o_remaining, o_rest_at, \
        ratelimit_effective_v1($1, $2, $3, $4, $5, o_now) AS o_effective, s.o_lim, s.o_win, s.o_burst, s.o_clock \
        FROM ratelimit_decide_v4($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) d \
        CROSS JOIN LATERAL ratelimit_rule_v1($1, d.o_now) s
        """
      let joint43 = """
        SELECT o_booked, o_time, o_now, o_remaining, o_rest_at, o_effective, s.o_lim, s.o_win, s.o_burst, \
        s.o_clock FROM ratelimit_decide_all_v6($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
        WITH ORDINALITY AS d CROSS JOIN LATERAL ratelimit_rule_v1(($1::bytea[])[d.ordinality], d.o_now) s \
        ORDER BY d.ordinality
        """
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let limiter = PostgresRateLimiter(
          client: client, name: name, limit: 2, per: .seconds(60), timeout: TestDatabase.timeout)
        try await limiter.prepare()
        let minute: Int64 = 60_000_000_000
        func answers(_ sql: String, _ binds: PostgresBindings) async throws -> [(Bool, Int64, Int64?)] {
          var answers: [(Bool, Int64, Int64?)] = []
          for try await row in try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds)) {
            let row = row.makeRandomAccess()
            answers.append(
              (
                try row["o_booked"].decode(Bool.self), try row["o_effective"].decode(Int64.self),
                try row["o_lim"].decode(Int64?.self)
              ))
          }
          return answers
        }
        let key = KeyArguments(
          name: ByteBuffer(string: name), key: ByteBuffer(string: "k"), limit: 2, window: minute, burst: nil)
        var booked: [Bool] = []
        for _ in 0..<3 {
          let decision = DecideStatement(
            key: key, permits: 1, now: nil, maxDelay: 0, mode: 0, sweep: 0, lockTimeout: "1s", id: nil)
          let answer = try #require(try await answers(decide43, decision.makeBindings()).first)
          booked.append(answer.0)
          #expect(answer.1 > 0 && answer.1 <= minute, "its effective window")
          #expect(answer.2 == 2, "the stored rule")
        }
        #expect(booked == [true, true, false])
        #expect(try await !limiter.tryAcquire(for: "k"), "this version sees the 4.3 process's grants")
        let joint = DecideAllStatement(
          names: [ByteBuffer(string: name)], key: ByteBuffer(string: "j"), limits: [2], windows: [minute],
          bursts: [0], permits: [1], nows: [0], clocks: [false], lockTimeout: "1s", ids: [0])
        #expect(try await answers(joint43, joint.makeBindings()).map(\.0) == [true])
        #expect(try await limiter.decide(for: "j").remaining == 0, "the joint grant and this one")
      }
    }

    /// An operator who revoked `EXECUTE` from `PUBLIC` and granted it to the application's role keeps both when a
    /// `prepare()` widens a function's answer (drops it and creates it again): given the defaults back, every
    /// decision of that role would fail (42501) after an upgrade, whatever the policy (the second review of the
    /// one-pass decision).
    @Test func anUpgradeKeepsTheFunctionsGrants() async throws {
      guard let configuration = TestDatabase.configuration() else { return }
      let suffix = UInt32.random(in: 0...UInt32.max)
      let (database, role) = ("ratelimit_grants_\(suffix)", "ratelimit_app_\(suffix)")
      let decide = try #require(Schema.answersWidened.first { $0.hasPrefix("ratelimit_decide_v4(") })
      _ = try await TestDatabase.withClient { client in
        try await client.query("CREATE DATABASE \(unescaped: database)")
        try await client.query("CREATE ROLE \(unescaped: role) NOLOGIN")
      }
      var fresh = configuration
      fresh.database = database
      _ = try await TestDatabase.withClient(fresh) { client in
        func acl() async throws -> (oid: Int64, public: Bool, role: Bool) {
          let rows = try await client.query(
            """
            SELECT '\(unescaped: decide)'::regprocedure::oid::bigint, \
            EXISTS (SELECT FROM pg_proc p, aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) AS a \
            WHERE p.oid = '\(unescaped: decide)'::regprocedure AND a.grantee = 0 AND a.privilege_type = 'EXECUTE'), \
            has_function_privilege('\(unescaped: role)', '\(unescaped: decide)', 'EXECUTE')
            """)
          var found: [(Int64, Bool, Bool)] = []
          for try await row in rows { found.append(try row.decode((Int64, Bool, Bool).self)) }
          return try #require(found.first)
        }
        try await PostgresRateLimiter(
          client: client, name: "n", limit: 1, per: .seconds(1), timeout: TestDatabase.timeout
        ).prepare()
        try await client.query("REVOKE EXECUTE ON FUNCTION \(unescaped: decide) FROM PUBLIC")
        try await client.query("GRANT EXECUTE ON FUNCTION \(unescaped: decide) TO \(unescaped: role)")
        // As the version before this one left the schema: the next prepare() widens the functions again.
        try await client.query("UPDATE ratelimit_release SET version = \(unescaped: String(Schema.version - 1))")
        let before = try await acl()
        #expect(!before.public && before.role)
        try await PostgresRateLimiter(
          client: client, name: "n", limit: 1, per: .seconds(1), timeout: TestDatabase.timeout
        ).prepare()
        let after = try await acl()
        #expect(after.oid != before.oid, "the function was created again")
        #expect(!after.public, "PUBLIC's EXECUTE stays revoked")
        #expect(after.role, "the role keeps its EXECUTE")
      }
      _ = try await TestDatabase.withClient { client in
        try await client.query("DROP DATABASE \(unescaped: database) WITH (FORCE)")
        try await client.query("DROP ROLE \(unescaped: role)")
      }
    }

    /// The review of 4.3.1: a limiter without limiting (`window: .zero`) stored "N per 1 ns" for a fresh name,
    /// which every limited process of the name then adopted (no limit at all); it stores no rule now, and follows
    /// none.
    @Test func aLimiterWithoutLimitingStoresNoRule() async throws {
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let unlimited = PostgresRateLimiter(
          client: client, name: name, limit: 5, per: .zero, timeout: TestDatabase.timeout)
        try await unlimited.prepare()
        let limited = PostgresRateLimiter(
          client: client, name: name, limit: 2, per: .seconds(60), timeout: TestDatabase.timeout)
        #expect(try await limited.tryAcquire(for: "k"))
        #expect(try await limited.tryAcquire(for: "k"))
        #expect(try await !limited.tryAcquire(for: "k"))
        #expect(limited.limit == 2 && limited.window == .seconds(60))
        #expect(unlimited.window == .zero)
      }
    }

    /// The review of 4.3.1: a penalised decision (a middleware's `penalty`) follows another process's `update`
    /// as every other decision does.
    @Test func aPenalisedDecisionFollowsTheStoredRule() async throws {
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let here = PostgresRateLimiter(
          client: client, name: name, limit: 5, per: .seconds(60), timeout: TestDatabase.timeout)
        let other = PostgresRateLimiter(
          client: client, name: name, limit: 5, per: .seconds(60), timeout: TestDatabase.timeout)
        try await here.prepare()
        try await other.update(limit: 9, per: .seconds(60))
        let decision = try await here.decidePenalising(1, for: "k", penalty: .seconds(1)).decision
        #expect(decision.isGranted && decision.limit == 9 && here.limit == 9, "\(decision)")
      }
    }

    /// Item 4 (SPEC 4.3.1, "the stored rule wins, and nobody traps"): a limiter made with other numbers than its
    /// name's stored rule trapped on its first decision; now it decides by the stored rule, reports it, warns
    /// once naming both, and scales its fallback by the same ratio. Another process's `update` is followed the
    /// same way (the fallback again), and a rule of the other kind is adopted too.
    @Test func aLimiterMadeWithOtherNumbersDecidesByTheStoredRule() async throws {
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let first = PostgresRateLimiter(
          client: client, name: name, limit: 5, per: .seconds(60), timeout: TestDatabase.timeout)
        try await first.prepare()
        let handler = RecordingLogHandler()
        let fallback = KeyedRateLimiter<String>(limit: 4, per: .seconds(60))
        let later = PostgresRateLimiter(
          client: client, name: name, limit: 10, per: .seconds(60), whenUnavailable: .fallback(fallback),
          timeout: TestDatabase.timeout, logger: Logger(label: "test") { _ in handler })
        let decision = try await later.decide(for: "k")
        #expect(decision.isGranted && decision.limit == 5 && decision.remaining == 4)
        #expect(later.limit == 5 && fallback.limit == 2)
        for _ in 0..<4 { #expect(try await later.tryAcquire(for: "k")) }
        #expect(try await !later.tryAcquire(for: "k"))
        let warnings = handler.messages.filter { $0.0 == .warning }.map(\.1)
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.contains("is stored with a sliding window of 5 per 60.0 seconds") == true)
        #expect(warnings.first?.contains("made with a sliding window of 10 per 60.0 seconds") == true)
        // Another process raises the limit: followed from the next decision, the fallback scaled again.
        try await first.update(limit: 20, per: .seconds(60))
        #expect(try await later.decide(for: "other").limit == 20)
        #expect(later.limit == 20 && fallback.limit == 8)
        #expect(handler.messages.filter { $0.0 == .warning }.count == 1)

        // A name stored as a token bucket, and a limiter made as a sliding window: the bucket decides.
        let bucketName = TestDatabase.uniqueName("bucket")
        let bucket = PostgresRateLimiter(
          client: client, name: bucketName, limit: 1, per: .seconds(60), burst: 3, timeout: TestDatabase.timeout)
        try await bucket.prepare()
        let window = PostgresRateLimiter(
          client: client, name: bucketName, limit: 50, per: .seconds(1), timeout: TestDatabase.timeout)
        for _ in 0..<3 { #expect(try await window.tryAcquire(for: "k")) }
        let refused = try await window.decide(for: "k")
        #expect(!refused.isGranted && refused.limit == 3 && window.burst == 3 && window.limit == 1)
      }
    }
  }
#endif
