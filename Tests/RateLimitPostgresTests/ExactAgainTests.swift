#if Postgres
  import Foundation
  import PostgresNIO
  import RateLimit
  import RateLimitHTTP
  import RateLimitPostgres
  import Testing

  /// SPEC 4.1.1, "exact again": the findings of the adversarial pass on 4.1, each reproduced through the public
  /// API (the fleet's over-admission is `FleetTests.sixProcessesOnTwoHundredKeysNeverExceedTheRule`).
  @Suite struct ExactAgainTests {
    static func limiter(
      _ client: PostgresClient, limit: Int, per window: Duration,
      whenUnavailable: PostgresRateLimiter.WhenUnavailable = .throwError, timeout: Duration = TestDatabase.timeout,
      localRefusals: Bool = true
    ) -> PostgresRateLimiter {
      PostgresRateLimiter(
        client: client, name: TestDatabase.uniqueName(), limit: limit, per: window,
        whenUnavailable: whenUnavailable, timeout: timeout, localRefusals: localRefusals)
    }

    static func granted(_ gate: RateLimitGate, _ requests: Int, key: String = "k") async throws -> Int {
      var granted = 0
      for _ in 0..<requests {
        if case .granted = try await gate.decide(key: key) { granted += 1 }
      }
      return granted
    }

    /// [PostgreSQL 10/min, in-process 3/min]: 10 requests, 3 granted, and PostgreSQL keeps only those 3 (4.1 kept
    /// all 10: the gate took back in-process grants only).
    @Test func aRefusalInProcessTakesBackThePostgresGrant() async throws {
      _ = try await TestDatabase.withClient { client in
        let shared = Self.limiter(client, limit: 10, per: .seconds(60))
        try await shared.prepare()
        let local = KeyedRateLimiter<String>(limit: 3, per: .seconds(60))
        let gate = RateLimitGate([RateLimitPolicy("shared", shared), RateLimitPolicy("local", local)])
        #expect(try await Self.granted(gate, 10) == 3)
        // 7 left: this decision takes one of them.
        #expect(try await shared.decide(for: "k").remaining == 6)
      }
    }

    /// PostgreSQL policies on two clients cannot decide in one statement: decided in order, a refusal by the
    /// second revokes the first's booking.
    @Test func policiesOnTwoClientsTakeNothingWhenOneRefuses() async throws {
      _ = try await TestDatabase.withClient { first in
        try await TestDatabase.withClient { second in
          let wide = Self.limiter(first, limit: 10, per: .seconds(60))
          let narrow = Self.limiter(second, limit: 3, per: .seconds(60))
          try await wide.prepare()
          try await narrow.prepare()
          let gate = RateLimitGate([RateLimitPolicy("wide", wide), RateLimitPolicy("narrow", narrow)])
          #expect(try await Self.granted(gate, 10) == 3)
          #expect(try await wide.decide(for: "k").remaining == 6)
        }
      }
    }

    /// One policy answered by its fallback (its database away: nothing listens), the other by the database: a
    /// refused request keeps nothing in the database (4.1 kept 30 refused uploads' "daily" bookings for a day).
    @Test func aPolicyAnsweredByItsFallbackNeverLeavesTheOthersBooking() async throws {
      _ = try await TestDatabase.withClient { client in
        let away = PostgresClient(
          configuration: .init(
            host: "127.0.0.1", port: AvailabilityTests.freePort(), username: "postgres", password: nil,
            database: nil, tls: .disable))
        let running = Task { await away.run() }
        defer { running.cancel() }
        let daily = Self.limiter(client, limit: 100, per: .seconds(86_400))
        try await daily.prepare()
        let burst = Self.limiter(
          away, limit: 10, per: .seconds(1),
          whenUnavailable: .fallback(KeyedRateLimiter(limit: 1, per: .seconds(3_600))), timeout: .milliseconds(250))
        let gate = RateLimitGate([RateLimitPolicy("daily", daily), RateLimitPolicy("burst", burst)])
        #expect(try await Self.granted(gate, 30) == 1)
        // 99 left: this decision takes one of them.
        #expect(try await daily.decide(for: "k").remaining == 98)
      }
    }

    /// An undo in PostgreSQL (`ratelimit_undo_v5`) gives back exactly the grant's permits, whatever other grants
    /// of the key came between, for both rules: Go's cancel (`ratelimit_cancel_v4`) gives a token bucket's back
    /// only while it is the key's latest booking.
    @Test(arguments: [nil, 10] as [Int?]) func anUndoInPostgresGivesBackItsPermits(burst: Int?) async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let limiter =
          if let burst {
            PostgresRateLimiter(
              client: client, name: TestDatabase.uniqueName(), limit: 10, per: .seconds(60), burst: burst,
              time: .clock(clock), timeout: TestDatabase.timeout)
          } else {
            PostgresRateLimiter(
              client: client, name: TestDatabase.uniqueName(), limit: 10, per: .seconds(60), time: .clock(clock),
              timeout: TestDatabase.timeout)
          }
        try await limiter.prepare()
        let first = try await limiter.decideUndoably(1, for: "k")
        #expect(first.decision.isGranted && first.decision.remaining == 9)
        clock.advance(by: .milliseconds(1))
        #expect(try await limiter.decide(for: "k").remaining == 8)
        clock.advance(by: .milliseconds(1))
        let after = await first.undo()
        #expect(after.remaining == 9)
        #expect(try await limiter.decide(for: "k").remaining == 8)
        // A second undo of the same grant gives nothing more.
        #expect(await first.undo().remaining == 8)
      }
    }

    /// Local refusals compare keys by their UTF-8 bytes, as the database does: exhausting one spelling never
    /// refuses a canonically equivalent other (4.1 refused the victim 5 of 5 times).
    @Test func localRefusalsCompareKeysByTheirBytes() async throws {
      _ = try await TestDatabase.withClient { client in
        let limiter = Self.limiter(client, limit: 1, per: .seconds(60))
        try await limiter.prepare()
        let attacker = "A\u{30A}ngstro\u{308}m-user"
        let victim = "\u{C5}ngstr\u{F6}m-user"
        #expect(attacker == victim)  // Swift's String equality: canonical equivalence
        #expect(try await limiter.decide(for: attacker).isGranted)
        #expect(try await !limiter.decide(for: attacker).isGranted)  // now refused locally
        #expect(try await limiter.decide(for: victim).isGranted)
        #expect(try await limiter.tryAcquire(for: "caf\u{E9}"))
        #expect(try await !limiter.tryAcquire(for: "caf\u{E9}"))
        #expect(try await limiter.tryAcquire(for: "cafe\u{301}"))
      }
    }

    /// A joint decision whose statement cannot complete (the server frozen) is answered by each part's policy
    /// locally, all or nothing, within `timeout` and a local decision (4.1: each part asked the database again,
    /// 607 ms for two policies at 250 ms); once the server runs again its late statement books nothing.
    @Test func aFailedJointDecisionIsAnsweredLocallyAndBooksNothingLate() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let timeout = Duration.milliseconds(250)
          let open = Self.limiter(
            client, limit: 10, per: .seconds(600), whenUnavailable: .allow, timeout: timeout, localRefusals: false)
          let closed = Self.limiter(
            client, limit: 10, per: .seconds(600), whenUnavailable: .deny, timeout: timeout, localRefusals: false)
          try await open.prepare()
          try await closed.prepare()
          let gate = RateLimitGate([RateLimitPolicy("open", open), RateLimitPolicy("closed", closed)])
          #expect(try await Self.granted(gate, 1) == 1)
          await server("freeze")
          let clock = ContinuousClock()
          for _ in 0..<3 {
            let start = clock.now
            // SPEC 4.3.1, "fail closed is not a quota": refused only by `.deny`, the request is unavailable (a
            // 503 in the middlewares), the open policy's grant taken back; 4.1.1 answered it as a refusal.
            do {
              let outcome = try await gate.decide(key: "k")
              Issue.record("decided while the database was frozen and one policy denies: \(outcome)")
            } catch let error as RateLimitGate.Unavailable {
              #expect(error.policies == ["closed"])
            }
            let elapsed = clock.now - start
            // One timeout, not one per policy (slack for this shared 2-core VM).
            #expect(elapsed < timeout + .milliseconds(200), "\(elapsed)")
          }
          await server("thaw")
          // The frozen statements run now; what they booked is taken back as they arrive.
          try await Task.sleep(for: .seconds(2))
          let after = try await open.decide(for: "k")
          #expect(after.isGranted && !after.isFallback)
          #expect(after.remaining == 8, "phantom bookings: \(8 - after.remaining)")
          #expect(try await closed.decide(for: "k").remaining == 8)
        }
      }
    }

    /// A refused key answers locally in a joint decision too: once the database refused a part (one permit),
    /// the request is refused in this process until that part can grant, without a round trip. Shown with the
    /// server frozen after the refusal: the next requests are refused by the policy that refused, at once and
    /// not by `whenUnavailable` (4.1 sent every two-policy refusal to the database: here, a timeout each).
    @Test func aJointRequestRefusedByTheDatabaseIsRefusedLocallyAfter() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let timeout = Duration.milliseconds(250)
          let perMinute = Self.limiter(client, limit: 1, per: .seconds(60), whenUnavailable: .allow, timeout: timeout)
          let perDay = Self.limiter(
            client, limit: 100, per: .seconds(86_400), whenUnavailable: .allow, timeout: timeout)
          try await perMinute.prepare()
          try await perDay.prepare()
          let gate = RateLimitGate([RateLimitPolicy("minute", perMinute), RateLimitPolicy("day", perDay)])
          #expect(try await Self.granted(gate, 2) == 1)  // the second refused by the database
          await server("freeze")
          let clock = ContinuousClock()
          for _ in 0..<3 {
            let start = clock.now
            guard case .refused(let refusal) = try await gate.decide(key: "k") else {
              Issue.record("granted: answered by the policy (.allow), not by the local refusal")
              continue
            }
            #expect(refusal.refusedBy == ["minute"])
            #expect((refusal.retryAfter ?? .zero) > .seconds(50))
            #expect(clock.now - start < timeout, "a round trip was tried")
          }
          await server("thaw")
          // The day policy kept the one grant only.
          #expect(try await perDay.decide(for: "k").remaining == 98)
        }
      }
    }

    /// A request with several policies waits at most one `timeout` plus its local decisions, however many
    /// policies it has, also when they cannot decide in one statement (two clients): the database frozen, three
    /// policies answer within one timeout, not three.
    @Test func policiesOnSeveralClientsWaitOneTimeoutTogether() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { first in
          try await TestDatabase.withClient(configuration) { second in
            try await TestDatabase.withClient(configuration) { third in
              let timeout = Duration.milliseconds(250)
              let limiters = [first, second, third].map {
                Self.limiter($0, limit: 10, per: .seconds(600), whenUnavailable: .allow, timeout: timeout)
              }
              for limiter in limiters { try await limiter.prepare() }
              let gate = RateLimitGate(limiters.enumerated().map { RateLimitPolicy("p\($0)", $1) })
              #expect(try await Self.granted(gate, 1) == 1)
              await server("freeze")
              let clock = ContinuousClock()
              let start = clock.now
              #expect(try await Self.granted(gate, 1) == 1)  // each policy's .allow
              let elapsed = clock.now - start
              await server("thaw")
              #expect(elapsed < timeout + .milliseconds(200), "\(elapsed)")
            }
          }
        }
      }
    }

    /// A key whose lock another session holds never holds up the other keys of its limiter: 4.1 coalesced them
    /// behind it, so they waited for its lock timeout and went to the policy (14 of 20 denied).
    @Test func aLockedKeyNeverHoldsUpTheOtherKeys() async throws {
      _ = try await TestDatabase.withClient { client in
        let limiter = Self.limiter(
          client, limit: 5, per: .seconds(60), whenUnavailable: .deny, timeout: .seconds(2), localRefusals: false)
        try await limiter.prepare()
        let name = ByteBuffer(string: limiter.name)
        try await client.withConnection { connection in
          _ = try await connection.query(
            "SELECT pg_advisory_lock(ratelimit_lock_key(\(name), \(ByteBuffer(string: "held"))))",
            logger: .init(label: "test"))
          async let held = limiter.decide(for: "held")
          // Wait until the held key's statement waits for the lock (no sleep: the server says so).
          while true {
            let waiting = try await client.query(
              "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
            var count: Int64 = 0
            for try await value in waiting.decode(Int64.self) { count = value }
            if count > 0 { break }
          }
          let clock = ContinuousClock()
          let start = clock.now
          let fresh = await withTaskGroup(of: RateLimitDecision?.self) { group in
            for index in 0..<20 { group.addTask { try? await limiter.decide(for: "fresh-\(index)") } }
            return await group.reduce(into: []) { $0.append($1) }
          }
          let elapsed = clock.now - start
          #expect(fresh.filter { $0?.isGranted == true && $0?.isFallback == false }.count == 20)
          // Long before the held key's lock timeout (1.6 s).
          #expect(elapsed < .seconds(1), "\(elapsed)")
          let heldDecision = try await held
          #expect(heldDecision.isFallback && !heldDecision.isGranted)
          _ = try await connection.query(
            "SELECT pg_advisory_unlock(ratelimit_lock_key(\(name), \(ByteBuffer(string: "held"))))",
            logger: .init(label: "test"))
        }
        // One held key did not start the outage back-off: the next decision goes to the database.
        let next = try await limiter.decide(for: "after")
        #expect(next.isGranted && !next.isFallback)
      }
    }
  }
#endif
