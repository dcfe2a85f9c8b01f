#if Postgres
  import PostgresNIO
  import RateLimit
  @testable import RateLimitPostgres
  import Testing

  /// 4.0.1's findings against a real server (issue 28), each seen failing on 4.0 first, and 4.1's `decide`.
  @Suite struct HostileTrafficTests {
    /// 28.1: booking ids restarted at 0 when a key's row was swept, so a late cancel deleted another caller's
    /// booking (two permits in one window).
    @Test(arguments: [nil, 1] as [Int?])
    func aStaleCancelNeverTouchesAnotherBooking(burst: Int?) async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let name = TestDatabase.uniqueName()
        let limiter =
          if let burst {
            PostgresRateLimiter(
              client: client, name: name, limit: 1, per: .seconds(1), burst: burst, time: .clock(clock),
              timeout: TestDatabase.timeout)
          } else {
            PostgresRateLimiter(
              client: client, name: name, limit: 1, per: .seconds(1), time: .clock(clock),
              timeout: TestDatabase.timeout)
          }
        let keyed =
          if let burst {
            KeyedRateLimiter<String>(limit: 1, per: .seconds(1), burst: burst, clock: clock)
          } else {
            KeyedRateLimiter<String>(limit: 1, per: .seconds(1), clock: clock)
          }
        try await limiter.prepare()
        _ = try #require(try await limiter.reserve(for: "k"))
        let r1 = try #require(try await limiter.reserve(for: "k"))
        _ = keyed.reserve(for: "k")
        let k1 = try #require(keyed.reserve(for: "k"))
        clock.advance(by: .seconds(10))
        try await limiter.sweep()
        _ = try await limiter.reserve(for: "k")
        _ = try await limiter.reserve(for: "k")
        _ = keyed.reserve(for: "k")
        _ = keyed.reserve(for: "k")
        try await r1.cancel()  // its instant passed 9 s ago: nothing
        k1.cancel()
        let s2 = try #require(try await limiter.reserve(for: "k"))
        #expect(s2.time == keyed.reserve(for: "k")?.time)
        #expect(s2.time == .seconds(12))
      }
    }

    /// 28.6: cancelling an earlier booking erased the latest booking's right to come back.
    @Test func aBucketCancelIsNotABooking() async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let limiter = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 1, per: .seconds(1), burst: 1,
          time: .clock(clock), timeout: TestDatabase.timeout)
        try await limiter.prepare()
        #expect(try await limiter.tryAcquire(for: "k"))
        let r2 = try #require(try await limiter.reserve(for: "k"))
        let r3 = try #require(try await limiter.reserve(for: "k"))
        #expect(r3.time == .seconds(2))
        try await r2.cancel()  // r3 is later: nothing comes back
        #expect(try await limiter.retryAfter(for: "k") == .seconds(3))
        try await r3.cancel()  // the latest booking: as if it had never been made
        #expect(try await limiter.retryAfter(for: "k") == .seconds(2))
      }
    }

    /// 28.7: `limit: Int.max` and `tryAcquire(Int.max)` made every later decision throw 22003.
    @Test(arguments: [nil, Int.max] as [Int?])
    func hugeNumbersSaturateInSQL(burst: Int?) async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let name = TestDatabase.uniqueName()
        let limiter =
          if let burst {
            PostgresRateLimiter(
              client: client, name: name, limit: .max, per: .seconds(1), burst: burst, time: .clock(clock),
              timeout: TestDatabase.timeout)
          } else {
            PostgresRateLimiter(
              client: client, name: name, limit: .max, per: .seconds(1), time: .clock(clock),
              timeout: TestDatabase.timeout)
          }
        try await limiter.prepare()
        #expect(try await limiter.tryAcquire(.max, for: "k"))
        _ = try await limiter.tryAcquire(.max, for: "k")
        #expect(try await limiter.reserve(.max, for: "k") != nil)
        #expect(try await limiter.reserve(.max, for: "k") != nil)
        _ = try await limiter.decide(.max, for: "k")
        _ = try await limiter.retryAfter(.max, for: "k")
      }
    }

    /// 4.1: `decide` reports what `KeyedRateLimiter.decide` reports on the same timeline, with and without
    /// local refusals.
    @Test(arguments: [(nil, true), (nil, false), (2, true), (2, false)] as [(Int?, Bool)])
    func decideMatchesTheKeyedLimiter(burst: Int?, localRefusals: Bool) async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let name = TestDatabase.uniqueName()
        let limiter =
          if let burst {
            PostgresRateLimiter(
              client: client, name: name, limit: 3, per: .milliseconds(100), burst: burst, time: .clock(clock),
              timeout: TestDatabase.timeout, localRefusals: localRefusals)
          } else {
            PostgresRateLimiter(
              client: client, name: name, limit: 3, per: .milliseconds(100), time: .clock(clock),
              timeout: TestDatabase.timeout, localRefusals: localRefusals)
          }
        let keyed =
          if let burst {
            KeyedRateLimiter<String>(limit: 3, per: .milliseconds(100), burst: burst, clock: clock)
          } else {
            KeyedRateLimiter<String>(limit: 3, per: .milliseconds(100), clock: clock)
          }
        try await limiter.prepare()
        var generator = SystemRandomNumberGenerator()
        var steps: [String] = []
        for _ in 0..<300 {
          let key = ["a", "b"].randomElement(using: &generator)!
          let permits = Int.random(in: 1...2, using: &generator)
          switch Int.random(in: 0..<10, using: &generator) {
          case 0..<6:
            let shared = try await limiter.decide(permits, for: key)
            let local = keyed.decide(permits, for: key)
            steps.append("decide \(permits) \(key) at \(clock.now)")
            #expect(shared == local, "\(steps.suffix(6))")
          case 6..<8:
            let a = try await limiter.reserve(1, for: key, within: .milliseconds(60))
            let b = keyed.reserve(1, for: key, within: .milliseconds(60))
            steps.append("reserve \(key) at \(clock.now)")
            #expect(a?.time == b?.time)
          default:
            clock.advance(by: .milliseconds(Int64.random(in: 0...40, using: &generator)))
          }
        }
      }
    }

    /// 4.1: two policies on one client decide together, all or nothing, in one round trip: refusals by one
    /// never eat the other's quota. Without local refusals, so that every request is decided in the database
    /// and reports each part's state after it (4.1.1: a part refused locally refuses the request without asking,
    /// and the other parts are then not read: `ExactAgainTests.aJointRequestRefusedByTheDatabaseIsRefusedLocallyAfter`).
    @Test func jointDecisionsAreAllOrNothing() async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let perSecond = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName() + "-s", limit: 1, per: .seconds(1), time: .clock(clock),
          timeout: TestDatabase.timeout, localRefusals: false)
        let perDay = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName() + "-d", limit: 3, per: .seconds(86_400), burst: 3,
          time: .clock(clock), timeout: TestDatabase.timeout, localRefusals: false)
        try await perSecond.prepare()
        try await perDay.prepare()
        let parts: [(limiter: any SharedKeyedLimiter, permits: Int)] = [(perSecond, 1), (perDay, 1)]
        var granted = 0
        for _ in 0..<6 {
          for _ in 0..<3 {
            let decisions = try await perSecond.decideJointly(parts, for: "k")
            if decisions.allSatisfy(\.isGranted) { granted += 1 }
          }
          clock.advance(by: .seconds(1))
        }
        #expect(granted == 3)
        let last = try await perSecond.decideJointly(parts, for: "k")
        #expect(last.map(\.isGranted) == [true, false])
        #expect(last[0].remaining == 1)  // the per-second grant was rolled back
        #expect(last[1].remaining == 0)
        #expect(try await perSecond.retryAfter(for: "k") == .zero)
      }
    }
  }
#endif
