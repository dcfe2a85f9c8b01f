#if Postgres
  import PostgresNIO
  import RateLimit
  import RateLimitPostgres
  import Testing

  /// SPEC 4.2, "Operating a key", against a real server: `PostgresRateLimiter(.clock(c))` answers every
  /// operation as `KeyedRateLimiter` does on the same timeline, and `update` reaches every limiter of the name.
  @Suite(.serialized) struct PostgresOperationsTests {
    /// Random timelines of every operation (decide, peek, charge, refund, reset, block, update, time passing) on
    /// both limiters, three keys: every answer equal.
    @Test(arguments: [false, true]) func randomTimelinesAnswerAsKeyedRateLimiter(bucket: Bool) async throws {
      let seed = UInt64.random(in: 0...UInt64.max)
      _ = try await TestDatabase.withClient { client in
        var random = SeededGenerator(seed: seed)
        var operations = 0
        for _ in 0..<12 {
          let limit = Int.random(in: 1...4, using: &random)
          let burst = Int.random(in: 1...4, using: &random)
          let window = Duration.seconds(Int.random(in: 1...5, using: &random))
          let clock = ManualClock()
          let name = TestDatabase.uniqueName()
          let shared =
            bucket
            ? PostgresRateLimiter(
              client: client, name: name, limit: limit, per: window, burst: burst, time: .clock(clock),
              timeout: TestDatabase.timeout)
            : PostgresRateLimiter(
              client: client, name: name, limit: limit, per: window, time: .clock(clock),
              timeout: TestDatabase.timeout)
          try await shared.prepare()
          let local =
            bucket
            ? KeyedRateLimiter<String>(limit: limit, per: window, burst: burst, clock: clock)
            : KeyedRateLimiter<String>(limit: limit, per: window, clock: clock)
          var log = ["seed \(seed) limit \(limit) per \(window) burst \(burst) bucket \(bucket)"]
          for _ in 0..<30 {
            let key = ["a", "b", "c"].randomElement(using: &random)!
            let capacity = local.burst ?? local.limit
            let permits = Int.random(in: 1...capacity, using: &random)
            let amount = Int.random(in: 0...(2 * capacity), using: &random)
            let operation = Int.random(in: 0..<9, using: &random)
            log.append("\(clock.now) \(key) op \(operation) permits \(permits) amount \(amount)")
            switch operation {
            case 0:
              let expected = local.decide(permits, for: key)
              #expect(try await shared.decide(permits, for: key) == expected, "\(log)")
            case 1:
              let expected = local.peek(permits, for: key)
              #expect(try await shared.peek(permits, for: key) == expected, "\(log)")
            case 2:
              let expected = local.charge(amount, for: key)
              #expect(try await shared.charge(amount, for: key) == expected, "\(log)")
            case 3:
              let expected = local.refund(amount, for: key)
              #expect(try await shared.refund(amount, for: key) == expected, "\(log)")
            case 4:
              local.reset(key)
              try await shared.reset(key)
            case 5:
              let duration = Duration.milliseconds(Int.random(in: 0...8_000, using: &random))
              local.block(key, for: duration)
              try await shared.block(key, for: duration)
            case 6:
              let newLimit = Int.random(in: 1...4, using: &random)
              let newWindow = Duration.seconds(Int.random(in: 1...5, using: &random))
              if bucket {
                let newBurst = Int.random(in: 1...4, using: &random)
                local.update(limit: newLimit, per: newWindow, burst: newBurst)
                try await shared.update(limit: newLimit, per: newWindow, burst: newBurst)
              } else {
                local.update(limit: newLimit, per: newWindow)
                try await shared.update(limit: newLimit, per: newWindow)
              }
              log.append("update \(newLimit) per \(newWindow)")
            default:
              clock.advance(by: .milliseconds(Int.random(in: 0...3_000, using: &random)))
            }
            operations += 1
          }
          for key in ["a", "b", "c"] {
            let expected = local.peek(1, for: key)
            #expect(try await shared.peek(1, for: key) == expected, "\(log)")
          }
        }
        #expect(operations == 360)
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
  }
#endif
