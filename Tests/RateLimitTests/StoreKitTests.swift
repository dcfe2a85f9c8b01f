import RateLimit
import RateLimitStoreKit
import Testing

/// The store kit (RateLimitStoreKit) on the in-process store: `KeyedRateLimiter` gives every scenario's answers.
/// RateLimitPostgresTests runs the same scenarios on `PostgresRateLimiter`.
@Suite struct StoreKitTests {
  struct InProcessStore: StoreUnderTest {
    let limiter: KeyedRateLimiter<String>

    init(_ rule: StoreRule, clock: KitClock) {
      limiter =
        switch rule {
        case .window(let limit, let window): KeyedRateLimiter(limit: limit, per: window, clock: clock)
        case .bucket(let limit, let window, let burst):
          KeyedRateLimiter(limit: limit, per: window, burst: burst, clock: clock)
        }
    }

    func tryAcquire(_ permits: Int, for key: String) -> Bool { limiter.tryAcquire(permits, for: key) }

    func reserve(_ permits: Int, for key: String, within maxDelay: Duration?) -> StoreBooking? {
      limiter.reserve(permits, for: key, within: maxDelay).map { booking in
        StoreBooking(time: booking.time, delay: booking.delay) { booking.cancel() }
      }
    }

    func retryAfter(_ permits: Int, for key: String) -> Duration? { limiter.retryAfter(permits, for: key) }

    func decide(_ permits: Int, for key: String) -> RateLimitDecision { limiter.decide(permits, for: key) }

    func count() -> Int { limiter.count }

    func peek(_ permits: Int, for key: String) -> RateLimitDecision { limiter.peek(permits, for: key) }
    func charge(_ permits: Int, for key: String) -> RateLimitDecision { limiter.charge(permits, for: key) }
    func refund(_ permits: Int, for key: String) -> RateLimitDecision { limiter.refund(permits, for: key) }
    func reset(_ key: String) { limiter.reset(key) }
    func block(_ key: String, for duration: Duration) { limiter.block(key, for: duration) }

    func update(to rule: StoreRule) {
      switch rule {
      case .window(let limit, let window): limiter.update(limit: limit, per: window)
      case .bucket(let limit, let window, let burst): limiter.update(limit: limit, per: window, burst: burst)
      }
    }

    func acquire(_ permits: Int, for key: String, within maxDelay: Duration?) async -> Acquired {
      do {
        try await limiter.acquire(permits, for: key, within: maxDelay)
        return .returned
      } catch RateLimiterError.exceedsCapacity(let requested, let capacity) {
        return .exceedsCapacity(requested: requested, capacity: capacity)
      } catch RateLimiterError.exceedsMaxDelay(let delay, let maxDelay) {
        return .exceedsMaxDelay(delay: delay, maxDelay: maxDelay)
      } catch is CancellationError {
        return .cancelled
      } catch {
        return .failed("\(error)")
      }
    }
  }

  @Test(arguments: StoreScenario.all) func keyedRateLimiterGivesTheKitsAnswers(_ scenario: StoreScenario) async throws {
    let clock = KitClock()
    let store = InProcessStore(scenario.rule, clock: clock)
    let mismatches = try await scenario.mismatches(on: store, clock: clock)
    #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
  }
}
