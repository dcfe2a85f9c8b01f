/// What the HTTP gate and an app's own code need of a shared concurrency limiter: ``KeyedConcurrencyLimiter``
/// with `String` keys in process, `PostgresConcurrencyLimiter` across a fleet.
public protocol SharedConcurrencyLimiter: Sendable {
  /// The limit as this process knows it now.
  var limit: Int { get }
  /// A lease now if `permits` are free for `key` and nobody waits for it; `nil` otherwise. Never waits.
  func tryAcquire(_ permits: Int, for key: String) async throws -> Lease?
  /// `tryAcquire`, and the key after it.
  func decide(_ permits: Int, for key: String) async throws -> LeaseDecision
  /// The permits `key`'s leases hold now.
  func inUse(for key: String) async throws -> Int
}

extension KeyedConcurrencyLimiter: SharedConcurrencyLimiter where Key == String {}
