#if Postgres
  import Foundation
  import PostgresNIO
  import RateLimit
  import RateLimitPostgres
  import RateLimitStoreKit
  import Testing

  /// SPEC 4.2, "Operating a key", against a real server: `PostgresRateLimiter(.clock(c))` answers every
  /// operation as `KeyedRateLimiter` does on the same timeline, and `update` reaches every limiter of the name.
  @Suite(.serialized) struct PostgresOperationsTests {
    /// Random timelines of every operation (decide, peek, charge, refund, reset, block, update, time passing,
    /// `count()` after a sweep, and with `reservations` `reserve` and `cancel`) on both limiters, three keys: every
    /// answer equal. Set `RATELIMIT_TIMELINE_SEED` to replay the seed a failure prints.
    ///
    /// Found by them, each now a store kit scenario too: `count()` of a window after an update (release 10 kept
    /// a key's instant of rest from the old window); a `KeyedRateLimiter` booking made during a block past its
    /// `maxDelay`; in process, a booking made before a block and cancelled during it, before its instant, gave
    /// nothing back (it was cancelled as at the block's end), and a bucket's give-back during a block moved the
    /// bucket to the block's end; in PostgreSQL, a booking made during a block and cancelled left the bucket
    /// before the block's end, where a charge then counted differently.
    ///
    /// A token bucket's cancel follows two rules by design (SPEC, "PostgreSQL, token bucket cancel"): in process
    /// Go's `Reservation.Cancel` (back the permits later bookings did not count on), in PostgreSQL "as if the
    /// booking had never been made" for the key's latest booking and nothing otherwise. They agree on the latest
    /// grant while no update, refund or reset of its key came since (a refund may give back permits of the booking
    /// itself, which Go's cancel then gives back again; an update turns a full bucket into a full one at the new
    /// burst, where Go's keeps the credit; after a reset, "never made" is the reset bucket and what came after it,
    /// where Go's takes back only the booking's permits that no later grant counted on: booked, reset, a charge
    /// 0.15 s later, then cancelled, they differed by those 0.15 s), so only such cancels are played on a bucket.
    @Test(arguments: [false, true], [false, true])
    func randomTimelinesAnswerAsKeyedRateLimiter(bucket: Bool, reservations: Bool) async throws {
      _ = try await TestDatabase.withClient { client in
        try await Self.playTimelines(bucket: bucket, reservations: reservations, clients: [client])
      }
    }

    /// The same timelines on two limiters of one name, each on a client of its own (two processes), each
    /// operation on either: the answers of one `KeyedRateLimiter`. Without local refusals, which may answer
    /// from what this process saw (SPEC: another process's refusal ends at its instant at the latest).
    @Test(arguments: [false, true])
    func randomTimelinesOfTwoProcessesAnswerAsOneKeyedRateLimiter(bucket: Bool) async throws {
      _ = try await TestDatabase.withClient { first in
        try await TestDatabase.withClient { second in
          try await Self.playTimelines(bucket: bucket, reservations: true, clients: [first, second])
        }
      }
    }

    static func playTimelines(bucket: Bool, reservations: Bool, clients: [PostgresClient]) async throws {
      let replayed = ProcessInfo.processInfo.environment["RATELIMIT_TIMELINE_SEED"].flatMap { UInt64($0) }
      let seed = replayed ?? UInt64.random(in: 0...UInt64.max)
      do {
        var random = SeededGenerator(seed: seed)
        var operations = 0
        for _ in 0..<24 {
          let limit = Int.random(in: 1...4, using: &random)
          let burst = Int.random(in: 1...4, using: &random)
          let window = Duration.seconds(Int.random(in: 1...5, using: &random))
          let clock = ManualClock()
          let name = TestDatabase.uniqueName()
          let limiters = clients.map { client in
            bucket
              ? PostgresRateLimiter(
                client: client, name: name, limit: limit, per: window, burst: burst, time: .clock(clock),
                timeout: TestDatabase.timeout, localRefusals: clients.count == 1)
              : PostgresRateLimiter(
                client: client, name: name, limit: limit, per: window, time: .clock(clock),
                timeout: TestDatabase.timeout, localRefusals: clients.count == 1)
          }
          // Every process prepares when it starts (a limiter first used after another's update, with parameters
          // the name no longer has, is refused as one made later would be).
          for limiter in limiters { try await limiter.prepare() }
          let local =
            bucket
            ? KeyedRateLimiter<String>(limit: limit, per: window, burst: burst, clock: clock)
            : KeyedRateLimiter<String>(limit: limit, per: window, clock: clock)
          var log = ["seed \(seed) limit \(limit) per \(window) burst \(burst) bucket \(bucket)"]
          var bookings: [Booking] = []
          // A token bucket's grants, numbered: in PostgreSQL only a key's latest grant comes back when cancelled
          // (SPEC, "PostgreSQL, token bucket cancel"), where `RateLimiter` follows Go's `Reservation.Cancel`.
          var grants = 0
          var latestGrant: [String: Int] = [:]
          for _ in 0..<30 {
            let key = ["a", "b", "c"].randomElement(using: &random)!
            let process = clients.count == 1 ? 0 : Int.random(in: 0..<clients.count, using: &random)
            let shared = limiters[process]
            let capacity = local.burst ?? local.limit
            // Within this process's capacity too: a process that has not decided since another's update is
            // refused above its own until its next decision reads the stored rule (no round trip for it).
            let permits = Int.random(in: 1...min(capacity, shared.burst ?? shared.limit), using: &random)
            let amount = Int.random(in: 0...(2 * capacity), using: &random)
            var operation = Int.random(in: 0..<12, using: &random)
            if !reservations && (7...8).contains(operation) { operation = 11 }
            log.append("\(clock.now) \(key) op \(operation) permits \(permits) amount \(amount) process \(process)")
            switch operation {
            case 0:
              let expected = local.decide(permits, for: key)
              let answer = try await shared.decide(permits, for: key)
              log.append("\(expected) / \(answer)")
              #expect(answer == expected, "\(log)")
              if expected.isGranted {
                grants += 1
                latestGrant[key] = grants
              }
            case 1:
              let expected = local.peek(permits, for: key)
              let answer = try await shared.peek(permits, for: key)
              log.append("\(expected) / \(answer)")
              #expect(answer == expected, "\(log)")
            case 2:
              let expected = local.charge(amount, for: key)
              let answer = try await shared.charge(amount, for: key)
              log.append("\(expected) / \(answer)")
              #expect(answer == expected, "\(log)")
            case 3:
              let expected = local.refund(amount, for: key)
              let answer = try await shared.refund(amount, for: key)
              log.append("\(expected) / \(answer)")
              #expect(answer == expected, "\(log)")
              latestGrant[key] = nil
            case 4:
              local.reset(key)
              try await shared.reset(key)
              latestGrant[key] = nil
            case 5:
              let duration = Duration.milliseconds(Int.random(in: 0...8_000, using: &random))
              local.block(key, for: duration)
              try await shared.block(key, for: duration)
              log.append("block \(duration)")
            case 6:
              let newLimit = Int.random(in: 1...4, using: &random)
              let newWindow = Duration.seconds(Int.random(in: 1...5, using: &random))
              if bucket {
                let newBurst = Int.random(in: 1...4, using: &random)
                local.update(limit: newLimit, per: newWindow, burst: newBurst)
                try await shared.update(limit: newLimit, per: newWindow, burst: newBurst)
                log.append("burst \(newBurst)")
              } else {
                local.update(limit: newLimit, per: newWindow)
                try await shared.update(limit: newLimit, per: newWindow)
              }
              log.append("update \(newLimit) per \(newWindow)")
              latestGrant = [:]
            case 7:
              let within = Duration.seconds(Int.random(in: 0...10, using: &random))
              let expected = local.reserve(permits, for: key, within: within)
              let booked = try await shared.reserve(permits, for: key, within: within)
              log.append(
                "within \(within): \(String(describing: expected?.time)) / \(String(describing: booked?.time))")
              #expect(booked?.time == expected?.time && booked?.delay == expected?.delay, "\(log)")
              if let expected, let booked {
                grants += 1
                latestGrant[key] = grants
                bookings.append(Booking(local: expected, shared: booked, key: key, grant: grants))
              }
            case 8:
              guard !bookings.isEmpty else { break }
              let booking = bookings.remove(at: Int.random(in: 0..<bookings.count, using: &random))
              // A bucket's booking that is not its key's latest grant, or one made before an update, a refund or a
              // reset of its key: the two rules differ by design (see the test's documentation).
              guard !bucket || latestGrant[booking.key] == booking.grant else { break }
              log.append("cancel \(booking.key) \(booking.local.time)")
              latestGrant[booking.key] = nil
              booking.local.cancel()
              try await booking.shared.cancel()
            case 9:
              try await shared.sweep()
              #expect(try await shared.count() == local.count, "\(log)")
            default:
              clock.advance(by: .milliseconds(Int.random(in: 0...3_000, using: &random)))
            }
            operations += 1
          }
          for key in ["a", "b", "c"] {
            let expected = local.peek(1, for: key)
            for shared in limiters {
              let answer = try await shared.peek(1, for: key)
              #expect(answer == expected, "\(log) final \(key): \(expected) / \(answer)")
            }
          }
        }
        #expect(operations == 720)
      }
    }

    struct Booking {
      let local: RateLimiter.Reservation
      let shared: PostgresRateLimiter.Reservation
      let key: String
      let grant: Int
    }

    /// A request above a process's capacity that another process's `update` raised: the decision reads the
    /// stored rule and decides by it. 4.2 reported it granted and booked nothing (a grant no one paid for).
    /// `update` as a name's very first statement (no decision, no `prepare()` before it) stores the new rule, and
    /// every limiter of the name decides by it.
    @Test(arguments: [false, true])
    func anUpdateOfANameNeverDecidedStoresTheRule(bucket: Bool) async throws {
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let make = { (limit: Int) in
          bucket
            ? PostgresRateLimiter(
              client: client, name: name, limit: limit, per: .seconds(60), burst: limit, timeout: TestDatabase.timeout)
            : PostgresRateLimiter(
              client: client, name: name, limit: limit, per: .seconds(60), timeout: TestDatabase.timeout)
        }
        let first = make(1)
        if bucket {
          try await first.update(limit: 3, per: .seconds(60), burst: 3)
        } else {
          try await first.update(limit: 3, per: .seconds(60))
        }
        let other = make(1)
        for expected in [2, 1, 0] {
          let decision = try await other.decide(1, for: "k")
          #expect(decision.isGranted && decision.limit == 3 && decision.remaining == expected)
        }
        #expect(try await other.decide(1, for: "k").isGranted == false)
      }
    }

    @Test func aDecisionAboveAStaleCapacityIsDecidedByTheStoredRule() async throws {
      _ = try await TestDatabase.withClient { first in
        _ = try await TestDatabase.withClient { second in
          let clock = ManualClock()
          let name = TestDatabase.uniqueName()
          let a = PostgresRateLimiter(
            client: first, name: name, limit: 1, per: .seconds(10), burst: 1, time: .clock(clock),
            timeout: TestDatabase.timeout)
          let b = PostgresRateLimiter(
            client: second, name: name, limit: 1, per: .seconds(10), burst: 1, time: .clock(clock),
            timeout: TestDatabase.timeout)
          try await a.prepare()
          try await b.prepare()
          try await a.update(limit: 1, per: .seconds(10), burst: 3)
          let decided = try await b.decide(3, for: "k")
          #expect(decided.isGranted && decided.remaining == 0 && b.burst == 3)
          // The three permits were taken: nothing is left for either process.
          #expect(try await a.peek(1, for: "k").isGranted == false)
          #expect(try await b.retryAfter(1, for: "k") == .seconds(10))
        }
      }
    }

    /// A login flow: five failures, the sixth refused; `reset`; the next granted. A peek writes no row.
    @Test func aLoginFlowAndAPeekThatWritesNothing() async throws {
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let logins = PostgresRateLimiter(
          client: client, name: name, limit: 5, per: .seconds(900), timeout: TestDatabase.timeout)
        let peeked = try await logins.peek(for: "ip")
        #expect(peeked.isGranted && peeked.remaining == 4)
        #expect(try await TestDatabase.rows(of: name, client: client) == 0)
        for _ in 0..<5 { #expect(try await logins.decide(for: "ip").isGranted) }
        #expect(try await !logins.decide(for: "ip").isGranted)
        try await logins.reset("ip")
        #expect(try await logins.decide(for: "ip").isGranted)
      }
    }

    /// Debt: a bucket of 10 a minute charged 25 refuses for the true wait (more than a minute), then grants at
    /// the refill rate.
    @Test func debtIsPaidAtTheRefillRate() async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let tokens = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 10, per: .seconds(60), burst: 10,
          time: .clock(clock), timeout: TestDatabase.timeout)
        let after = try await tokens.charge(25, for: "team")
        #expect(after.isGranted && after.remaining == 0 && after.retryAfter == nil)
        let refused = try await tokens.decide(for: "team")
        #expect(!refused.isGranted && refused.retryAfter == .seconds(96))
        clock.advance(by: .seconds(96))
        #expect(try await tokens.decide(for: "team").isGranted)
        #expect(try await !tokens.decide(for: "team").isGranted)
        clock.advance(by: .seconds(6))
        #expect(try await tokens.decide(for: "team").isGranted)
      }
    }

    /// A block outlives the window, is extended by a later one, and is lifted by `reset`; a blocked key is kept
    /// (its row survives the sweep) and forgotten after.
    @Test func aBlockOutlivesTheWindow() async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let name = TestDatabase.uniqueName()
        let limiter = PostgresRateLimiter(
          client: client, name: name, limit: 2, per: .seconds(10), time: .clock(clock),
          timeout: TestDatabase.timeout)
        try await limiter.block("abuser", for: .seconds(60))
        let refused = try await limiter.decide(for: "abuser")
        #expect(!refused.isGranted && refused.retryAfter == .seconds(60) && refused.remaining == 0)
        try await limiter.block("abuser", for: .seconds(30))  // ends earlier: nothing changes
        clock.advance(by: .seconds(40))
        try await limiter.sweep()
        #expect(try await limiter.count() == 1)
        #expect(try await limiter.decide(for: "abuser").retryAfter == .seconds(20))
        try await limiter.block("abuser", for: .seconds(100))
        #expect(try await limiter.peek(for: "abuser").retryAfter == .seconds(100))
        try await limiter.reset("abuser")
        #expect(try await limiter.decide(for: "abuser").isGranted)
        clock.advance(by: .seconds(11))
        try await limiter.sweep()
        #expect(try await limiter.count() == 0)
      }
    }

    /// `update` on two limiters of one name (each its own client, as two processes): both follow the new limit
    /// from their next decision; no key loses its bookings; a limiter made later with the old parameters is
    /// refused (see `PostgresPreconditionTests`).
    @Test func anUpdateReachesEveryLimiterOfTheName() async throws {
      _ = try await TestDatabase.withClient { first in
        _ = try await TestDatabase.withClient { second in
          let name = TestDatabase.uniqueName()
          let a = PostgresRateLimiter(
            client: first, name: name, limit: 2, per: .seconds(60), timeout: TestDatabase.timeout)
          let b = PostgresRateLimiter(
            client: second, name: name, limit: 2, per: .seconds(60), timeout: TestDatabase.timeout,
            localRefusals: false)
          #expect(try await a.decide(for: "k").isGranted)
          #expect(try await b.decide(for: "k").isGranted)
          #expect(try await !b.decide(for: "k").isGranted)
          try await a.update(limit: 3, per: .seconds(60))
          #expect(a.limit == 3)
          // b decides by the stored rule from its next decision, and reports it: the two bookings kept, one
          // more granted.
          #expect(b.limit == 2)
          let decision = try await b.decide(for: "k")
          #expect(decision.isGranted && decision.limit == 3 && decision.remaining == 0)
          #expect(b.limit == 3)
          #expect(try await !a.decide(for: "k").isGranted)
        }
      }
    }

    /// A prepared bucket of 4 per 4 s (burst 4) on `clock`, and the same in process.
    static func buckets(on client: PostgresClient, clock: ManualClock, timeout: Duration = TestDatabase.timeout)
      async throws -> (PostgresRateLimiter, KeyedRateLimiter<String>)
    {
      let shared = PostgresRateLimiter(
        client: client, name: TestDatabase.uniqueName(), limit: 4, per: .seconds(4), burst: 4, time: .clock(clock),
        timeout: timeout, localRefusals: false)
      try await shared.prepare()
      return (shared, KeyedRateLimiter<String>(limit: 4, per: .seconds(4), burst: 4, clock: clock))
    }

    /// SPEC 4.2: "An update costs O(1) however many keys are held (keys settle when next used)". In PostgreSQL
    /// an update visits no key: one whose lock another session holds does not hold it up (release 10 converted
    /// every key of the name under its lock, so this update waited for that lock until its timeout and threw),
    /// no row is written by it, and each key, brought under it when next read, answers as `KeyedRateLimiter`
    /// does after the same update.
    @Test func anUpdateVisitsNoKey() async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let (shared, local) = try await Self.buckets(on: client, clock: clock, timeout: .seconds(2))
        for (key, permits) in [("held", 4), ("other", 2)] {
          #expect(try await shared.decide(permits, for: key) == local.decide(permits, for: key))
        }
        clock.advance(by: .seconds(1))
        let name = ByteBuffer(string: shared.name)
        let lock: PostgresQuery = "SELECT pg_advisory_lock(ratelimit_lock_key(\(name), \(ByteBuffer(string: "held"))))"
        let unlock: PostgresQuery =
          "SELECT pg_advisory_unlock(ratelimit_lock_key(\(name), \(ByteBuffer(string: "held"))))"
        try await client.withConnection { connection in
          _ = try await connection.query(lock, logger: .init(label: "test"))
          let started = ContinuousClock.now
          try await shared.update(limit: 2, per: .seconds(4), burst: 8)
          local.update(limit: 2, per: .seconds(4), burst: 8)
          #expect(ContinuousClock.now - started < .seconds(1))
          _ = try await connection.query(unlock, logger: .init(label: "test"))
        }
        // Both rows as the decisions left them: none brought under the update yet.
        let unsettled = try await client.query(
          """
          SELECT count(*) FROM ratelimit_keys k JOIN ratelimit_names n USING (name) \
          WHERE name = \(name) AND k.version < n.version
          """
        ).decode(Int64.self).reduce(0) { $0 + $1 }
        #expect(unsettled == 2)
        for step in 0..<3 {
          for key in ["held", "other"] {
            #expect(try await shared.peek(for: key) == local.peek(for: key), "\(key) at step \(step)")
            #expect(try await shared.decide(for: key) == local.decide(for: key), "\(key) at step \(step)")
          }
          clock.advance(by: .milliseconds(1_500))
        }
      }
    }

    /// A key not yet brought under an update is counted, and swept, by its new rule (release 11): an update that
    /// slows a bucket's refill keeps the key past its old instant of rest, one that speeds it counts the key at
    /// rest before its old instant; the sweep deletes its row once it is at rest by the new rule.
    @Test(arguments: [1, 16]) func anUnsettledKeyIsCountedAndSweptByItsNewRule(newLimit: Int) async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let (shared, local) = try await Self.buckets(on: client, clock: clock)
        #expect(try await shared.decide(4, for: "k") == local.decide(4, for: "k"))
        clock.advance(by: .seconds(1))
        try await shared.update(limit: newLimit, per: .seconds(4), burst: 4)
        local.update(limit: newLimit, per: .seconds(4), burst: 4)
        // At rest at 4 s by the old rule; by the new one at 13 s (1 per 4 s) or 1.75 s (16 per 4 s).
        let rows: PostgresQuery = "SELECT count(*) FROM ratelimit_keys WHERE name = \(ByteBuffer(string: shared.name))"
        for step in [Duration.milliseconds(500), .milliseconds(2_500), .seconds(1), .seconds(8), .seconds(1)] {
          clock.advance(by: step)
          try await shared.sweep()
          #expect(try await shared.count() == local.count, "at \(clock.now)")
          let held = try await client.query(rows).decode(Int64.self).reduce(0) { $0 + $1 }
          #expect(held >= Int64(local.count), "at \(clock.now): a key not at rest is never swept")
        }
        let held = try await client.query(rows).decode(Int64.self).reduce(0) { $0 + $1 }
        #expect(held == 0, "at rest by the new rule: swept")
        #expect(try await shared.peek(4, for: "k") == local.peek(4, for: "k"))
      }
    }

    /// An update of a name with 100,000 keys held succeeds, and its keys answer by the new rule. Release 10 took
    /// every key's lock in the update's one transaction: with this many keys the server's lock table was
    /// full, and the update failed ("out of shared memory") whatever the timeout.
    @Test func anUpdateOfANameWithManyKeysSucceeds() async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let (shared, local) = try await Self.buckets(on: client, clock: clock)
        // 100,000 keys emptied at 0 (as `decide(4, for:)` leaves them), written in one statement.
        _ = try await client.query(
          """
          INSERT INTO ratelimit_keys (name, key, latest, tokens, last, rest_at) \
          SELECT \(ByteBuffer(string: shared.name)), convert_to('k-' || i, 'UTF8'), 0, 0, 0, 4000000000 \
          FROM generate_series(1, 100000) AS i
          """)
        for key in ["k-1", "k-100000"] { _ = local.decide(4, for: key) }
        clock.advance(by: .seconds(1))
        try await shared.update(limit: 8, per: .seconds(4), burst: 4)
        local.update(limit: 8, per: .seconds(4), burst: 4)
        for key in ["k-1", "k-100000", "fresh"] {
          #expect(try await shared.decide(2, for: key) == local.decide(2, for: key), "\(key)")
        }
      }
    }
  }
#endif
