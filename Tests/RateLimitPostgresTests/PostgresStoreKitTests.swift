#if Postgres
  import PostgresNIO
  import RateLimit
  import RateLimitPostgres
  import RateLimitStoreKit
  import Testing

  /// The store kit (RateLimitStoreKit) on PostgreSQL: `PostgresRateLimiter` with `.clock(c)` gives every
  /// scenario's answers, the answers RateLimitTests checks `KeyedRateLimiter` against. With local refusals (the
  /// default) and without: a refused key answered here must answer as the database would.
  @Suite(.serialized) struct PostgresStoreKitTests {
    struct SharedStore: StoreUnderTest {
      let limiter: PostgresRateLimiter

      init(_ rule: StoreRule, clock: KitClock, client: PostgresClient, localRefusals: Bool) {
        let name = TestDatabase.uniqueName()
        limiter =
          switch rule {
          case .window(let limit, let window):
            PostgresRateLimiter(
              client: client, name: name, limit: limit, per: window, time: .clock(clock),
              timeout: TestDatabase.timeout, localRefusals: localRefusals)
          case .bucket(let limit, let window, let burst):
            PostgresRateLimiter(
              client: client, name: name, limit: limit, per: window, burst: burst, time: .clock(clock),
              timeout: TestDatabase.timeout, localRefusals: localRefusals)
          }
      }

      func tryAcquire(_ permits: Int, for key: String) async throws -> Bool {
        try await limiter.tryAcquire(permits, for: key)
      }

      func reserve(_ permits: Int, for key: String, within maxDelay: Duration?) async throws -> StoreBooking? {
        try await limiter.reserve(permits, for: key, within: maxDelay).map { booking in
          StoreBooking(time: booking.time, delay: booking.delay) { try await booking.cancel() }
        }
      }

      func retryAfter(_ permits: Int, for key: String) async throws -> Duration? {
        try await limiter.retryAfter(permits, for: key)
      }

      func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision {
        try await limiter.decide(permits, for: key)
      }

      func count() async throws -> Int { try await limiter.count() }

      func peek(_ permits: Int, for key: String) async throws -> RateLimitDecision {
        try await limiter.peek(permits, for: key)
      }

      func charge(_ permits: Int, for key: String) async throws -> RateLimitDecision {
        try await limiter.charge(permits, for: key)
      }

      func refund(_ permits: Int, for key: String) async throws -> RateLimitDecision {
        try await limiter.refund(permits, for: key)
      }

      func reset(_ key: String) async throws { try await limiter.reset(key) }

      func block(_ key: String, for duration: Duration) async throws { try await limiter.block(key, for: duration) }

      func update(to rule: StoreRule) async throws {
        switch rule {
        case .window(let limit, let window): try await limiter.update(limit: limit, per: window)
        case .bucket(let limit, let window, let burst):
          try await limiter.update(limit: limit, per: window, burst: burst)
        }
      }

      func acquire(_ permits: Int, for key: String, within maxDelay: Duration?) async -> Acquired {
        do {
          try await limiter.acquire(permits, for: key, within: maxDelay)
          return .returned
        } catch PostgresRateLimiterError.exceedsCapacity(let requested, let capacity) {
          return .exceedsCapacity(requested: requested, capacity: capacity)
        } catch PostgresRateLimiterError.exceedsMaxDelay(let delay, let maxDelay) {
          return .exceedsMaxDelay(delay: delay, maxDelay: maxDelay)
        } catch is CancellationError {
          return .cancelled
        } catch {
          return .failed("\(error)")
        }
      }
    }

    @Test(arguments: StoreScenario.all, [true, false])
    func postgresRateLimiterGivesTheKitsAnswers(_ scenario: StoreScenario, localRefusals: Bool) async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = KitClock()
        let store = SharedStore(scenario.rule, clock: clock, client: client, localRefusals: localRefusals)
        try await store.limiter.prepare()
        let mismatches = try await scenario.mismatches(on: store, clock: clock)
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
      }
    }
  }
#endif
