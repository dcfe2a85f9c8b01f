#if Postgres
  import PostgresNIO
  import RateLimit
  @testable import RateLimitPostgres
  import Testing

  /// SPEC 4.2, counting: a served request's permits given back "exactly", and "PostgreSQL: the give-back is one
  /// round trip (coalesced like decisions)".
  @Suite(.serialized) struct GiveBackTests {
    /// Whether `count` decisions or give-backs have arrived in `limiter`'s lane within five seconds.
    static func arrivals(reach count: Int, on limiter: PostgresRateLimiter) async -> Bool {
      await withTaskGroup(of: Bool.self) { group in
        group.addTask {
          await limiter.store.coalescer.waitUntilArrivals(count)
          return !Task.isCancelled
        }
        group.addTask {
          try? await Task.sleep(for: .seconds(5))
          return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
      }
    }

    /// While a decision is in flight (the server frozen), four served requests give their permits back: they
    /// queue in the limiter's lane and go together in the next statement, and every key is as if its request had
    /// never been decided. (4.2 sent each give-back alone, outside the lane: five statements, not two.)
    @Test(arguments: [false, true]) func giveBacksShareRoundTripsLikeDecisions(bucket: Bool) async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let name = TestDatabase.uniqueName()
          let shared =
            bucket
            ? PostgresRateLimiter(
              client: client, name: name, limit: 2, per: .seconds(60), burst: 2, timeout: TestDatabase.timeout,
              localRefusals: false)
            : PostgresRateLimiter(
              client: client, name: name, limit: 2, per: .seconds(60), timeout: TestDatabase.timeout,
              localRefusals: false)
          try await shared.prepare()
          let keys = ["a", "b", "c", "d"]
          var grants: [UndoableDecision] = []
          for key in keys {
            let grant = try await shared.decision(2, for: key, undoable: true)
            #expect(grant.decision.isGranted && grant.decision.remaining == 0)
            grants.append(grant)
          }
          let before = shared.store.coalescer.counts
          await server("freeze")
          var queued = true
          try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await shared.decide(for: "blocker") }
            queued = await Self.arrivals(reach: before.arrivals + 1, on: shared)
            for (index, grant) in grants.enumerated() where queued {
              group.addTask { await grant.giveBack() }
              queued = await Self.arrivals(reach: before.arrivals + 2 + index, on: shared)
            }
            await server("thaw")
            try await group.waitForAll()
          }
          #expect(queued, "every give-back arrives in the lane")
          let after = shared.store.coalescer.counts
          #expect(after.statements - before.statements == 2, "the decision in flight, then the four give-backs")
          for key in keys {
            let peeked = try await shared.peek(2, for: key)
            #expect(peeked.isGranted, "\(key): given back exactly")
          }
        }
      }
    }

    /// A give-back follows the name's stored rule, as every decision does: another process's `update` made
    /// between this process's grant and its give-back (this one still knows the old parameters) is no reason to
    /// give back less. 4.2 gave back at the old window's scale: a bucket of 10 per 10 s made 10 per 20 s, 5
    /// permits given back, got none back.
    @Test func aGiveBackAfterAnotherProcessesUpdateFollowsTheStoredRule() async throws {
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let clock = ManualClock()
        func limiter() -> PostgresRateLimiter {
          PostgresRateLimiter(
            client: client, name: name, limit: 10, per: .seconds(10), burst: 10, time: .clock(clock),
            timeout: TestDatabase.timeout, localRefusals: false)
        }
        let (here, there) = (limiter(), limiter())
        try await here.prepare()
        try await there.prepare()
        let grant = try await here.decision(5, for: "k", undoable: true)
        #expect(grant.decision.isGranted && grant.decision.remaining == 5)
        try await there.update(limit: 10, per: .seconds(20), burst: 10)
        await grant.giveBack()
        let peeked = try await there.peek(10, for: "k")
        #expect(peeked.isGranted, "a full bucket: \(peeked)")
      }
    }
  }
#endif
