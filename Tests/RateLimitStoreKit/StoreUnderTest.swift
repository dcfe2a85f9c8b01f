public import RateLimit

/// What the kit asks of a store: the decisions of a keyed limiter, made now on the kit's clock. Each store's
/// suite wraps its limiter in one of these (`KeyedRateLimiter` in RateLimitTests, `PostgresRateLimiter` with
/// `.clock(c)` in RateLimitPostgresTests), so that both answer the same ``StoreScenario``s.
public protocol StoreUnderTest: Sendable {
  /// The store's `tryAcquire(_:for:)`.
  func tryAcquire(_ permits: Int, for key: String) async throws -> Bool
  /// The booking, if one was made; `nil` otherwise.
  func reserve(_ permits: Int, for key: String, within maxDelay: Duration?) async throws -> StoreBooking?
  /// The store's `retryAfter(_:for:)`.
  func retryAfter(_ permits: Int, for key: String) async throws -> Duration?
  /// The store's `decide(_:for:)`.
  func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision
  /// The keys whose state differs from a fresh limiter's, now.
  func count() async throws -> Int
  /// The store's `acquire(_:for:within:)` (the core's front door over the store), its end as an ``Acquired``.
  func acquire(_ permits: Int, for key: String, within maxDelay: Duration?) async -> Acquired
  /// The store's `peek(_:for:)` (SPEC 4.2).
  func peek(_ permits: Int, for key: String) async throws -> RateLimitDecision
  /// The store's `charge(_:for:)`.
  func charge(_ permits: Int, for key: String) async throws -> RateLimitDecision
  /// The store's `refund(_:for:)`.
  func refund(_ permits: Int, for key: String) async throws -> RateLimitDecision
  /// The store's `reset(_:)`.
  func reset(_ key: String) async throws
  /// The store's `block(_:for:)`.
  func block(_ key: String, for duration: Duration) async throws
  /// The store's `update(limit:per:)` or `update(limit:per:burst:)`, for `rule` (the same kind as the store's).
  func update(to rule: StoreRule) async throws
}

/// How an `acquire` ended: returned, or the error it threw, in a form every store shares (each store throws its
/// own error type).
public enum Acquired: Sendable, Equatable, CustomStringConvertible {
  /// Returned: the permits are granted.
  case returned
  /// More than the capacity: nothing booked.
  case exceedsCapacity(requested: Int, capacity: Int)
  /// Not within `maxDelay`: nothing booked.
  case exceedsMaxDelay(delay: Duration, maxDelay: Duration)
  /// `CancellationError`.
  case cancelled
  /// Any other error, described.
  case failed(String)

  /// As a mismatch shows it.
  public var description: String {
    switch self {
    case .returned: "returned"
    case .exceedsCapacity(let requested, let capacity): "exceedsCapacity(\(requested), capacity \(capacity))"
    case .exceedsMaxDelay(let delay, let maxDelay): "exceedsMaxDelay(\(delay), maxDelay \(maxDelay))"
    case .cancelled: "CancellationError"
    case .failed(let error): "failed: \(error)"
    }
  }
}

/// A booking a store made: its instant and delay, and how to give it back.
public struct StoreBooking: Sendable {
  /// The booking's instant, on the store's clock.
  public let time: Duration
  /// Its instant minus the decision's.
  public let delay: Duration
  /// The booking's `cancel()`.
  public let cancel: @Sendable () async throws -> Void

  /// A booking at `time`, `delay` after its decision, given back by `cancel`.
  public init(time: Duration, delay: Duration, cancel: @escaping @Sendable () async throws -> Void) {
    (self.time, self.delay, self.cancel) = (time, delay, cancel)
  }
}

/// The rule a scenario runs: N per T, as a strict sliding window or a token bucket of size B.
public enum StoreRule: Sendable, Equatable {
  /// A strict sliding window: at most `limit` permits in any window of length `per`.
  case window(limit: Int, per: Duration)
  /// A token bucket: `limit` permits refilled per `per`, up to `burst`.
  case bucket(limit: Int, per: Duration, burst: Int)
}
