#if Postgres
  import PostgresNIO
  import RateLimit
  import RateLimitPostgres
  import Testing

  /// A joint decision (several policies for one key, one round trip: RateLimitHTTP's all-or-nothing) on limiters
  /// of one client whose clocks differ: each part decides on its own limiter's "now", as it would alone.
  @Suite struct JointDecisionTests {
    /// One limiter on the database's clock, one on a `ManualClock`, 1 per 10 s each; both parts granted
    /// jointly, whichever limiter the joint decision goes through. Then each limiter alone: the database's
    /// limiter refuses (its booking is at the database's "now"), the manual one refuses until its clock has moved
    /// 10 s, and grants then.
    @Test(arguments: [false, true])
    func eachPartDecidesOnItsOwnLimitersClock(throughTheManualOne: Bool) async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let database = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 1, per: .seconds(10),
          timeout: TestDatabase.timeout)
        let manual = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 1, per: .seconds(10), time: .clock(clock),
          timeout: TestDatabase.timeout)
        try await database.prepare()
        try await manual.prepare()
        let (through, other) = throughTheManualOne ? (manual, database) : (database, manual)
        let joint = try await through.decideJointly([(through, 1), (other, 1)], for: "k")
        #expect(joint.map(\.isGranted) == [true, true])

        let databaseAlone = try await database.decide(for: "k")
        #expect(!databaseAlone.isGranted)
        #expect((databaseAlone.retryAfter ?? .zero) > .seconds(9))
        let manualAlone = try await manual.decide(for: "k")
        #expect(!manualAlone.isGranted)
        #expect(manualAlone.retryAfter == .seconds(10))
        clock.advance(by: .seconds(10))
        #expect(try await manual.decide(for: "k").isGranted)
      }
    }

    /// A part that asks more than its limiter's capacity can never be granted: the request is refused and nothing
    /// is taken from any part (each reports its own answer, as RateLimitHTTP's in-process policies do). A part
    /// with no limiting (`window: .zero`) between two others keeps the decision all or nothing too.
    @Test func aRequestThatNoPartCanGrantTakesNothing() async throws {
      _ = try await TestDatabase.withClient { client in
        func limiter(_ limit: Int, per window: Duration) -> PostgresRateLimiter {
          PostgresRateLimiter(
            client: client, name: TestDatabase.uniqueName(), limit: limit, per: window, timeout: TestDatabase.timeout)
        }
        let (wide, narrow, open) = (
          limiter(10, per: .seconds(60)), limiter(3, per: .seconds(60)), limiter(1, per: .zero)
        )
        try await wide.prepare()
        let overCapacity = try await wide.decideJointly([(wide, 1), (narrow, 5)], for: "k")
        #expect(overCapacity.map(\.isGranted) == [true, false])
        #expect(overCapacity[1].retryAfter == nil)
        #expect(try await wide.decide(for: "k").remaining == 9)
        #expect(try await narrow.decide(3, for: "k").isGranted)

        let refused = try await wide.decideJointly([(wide, 1), (open, 1), (narrow, 1)], for: "k")
        #expect(refused.map(\.isGranted) == [true, true, false])
        #expect(try await wide.decide(for: "k").remaining == 8)
      }
    }

    /// SPEC 4.2: a block works on a limiter with no limiting too, so such a part, blocked, refuses a joint
    /// request, and the other parts take nothing.
    @Test func aBlockedPartWithoutLimitingRefusesTheRequest() async throws {
      _ = try await TestDatabase.withClient { client async throws in
        let wide = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 10, per: .seconds(60), timeout: TestDatabase.timeout)
        let open = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 1, per: .zero, timeout: TestDatabase.timeout)
        #expect(try await wide.decideJointly([(wide, 1), (open, 1)], for: "k").map(\.isGranted) == [true, true])
        try await open.block("k", for: .seconds(60))
        let refused = try await wide.decideJointly([(wide, 1), (open, 1)], for: "k")
        #expect(refused.map(\.isGranted) == [true, false])
        #expect(refused[1].retryAfter.map { $0 > .seconds(59) && $0 <= .seconds(60) } == true)
        #expect(try await wide.peek(for: "k").remaining == 8)
        try await open.reset("k")
        #expect(try await wide.decideJointly([(wide, 1), (open, 1)], for: "k").map(\.isGranted) == [true, true])
      }
    }
  }
#endif
