/// The in-process ``KeyedRateLimiter`` and the shared `PostgresRateLimiter` (module RateLimitPostgres) behind one
/// protocol, so that server code (RateLimitHTTP's policies, a middleware) takes either.
///
/// ```swift
/// func admit(
///   _ key: String, by limiter: some SharedKeyedLimiter
/// ) async throws -> Duration? {
///   let decision = try await limiter.decide(1, for: key)
///   // Refused: how long until a retry can succeed (Retry-After).
///   return decision.isGranted ? nil : decision.retryAfter ?? .seconds(3600)
/// }
/// ```
///
/// Since 4.1 it lives here, in the core, and gains ``decide(_:for:)``; code that used it from RateLimitPostgres
/// still compiles.
public protocol SharedKeyedLimiter: Sendable {
  /// Takes `permits` for `key` now if they can be granted now; never waits, never books for later.
  func tryAcquire(_ permits: Int, for key: String) async throws -> Bool
  /// How long a request for `permits` made now would wait (`.zero`: granted now); `nil` if it never can.
  func retryAfter(_ permits: Int, for key: String) async throws -> Duration?
  /// Decides as ``tryAcquire(_:for:)`` and reports what a response needs (``RateLimitDecision``), in one step.
  func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision
}

extension KeyedRateLimiter: SharedKeyedLimiter where Key == String {}

/// A limiter whose grant can be taken back exactly, so that several of them grant all or nothing
/// (``KeyedRateLimiter``). RateLimitHTTP asks it; not for apps.
package protocol UndoableKeyedLimiter: SharedKeyedLimiter {
  /// A decision that `UndoableDecision.undo()` can take back.
  func decideUndoably(_ permits: Int, for key: String) async throws -> UndoableDecision
}

extension KeyedRateLimiter: UndoableKeyedLimiter where Key == String {}

/// Limiters that decide several requests for one key together, atomically, in one step, when they share a
/// `jointGroup` (`PostgresRateLimiter`s on one client: one round trip). RateLimitHTTP asks it; not for apps.
package protocol JointlyDecidingLimiter: SharedKeyedLimiter {
  /// Limiters with equal groups can decide together.
  var jointGroup: ObjectIdentifier { get }
  /// Decides every part for `key`, all or nothing: granted only if every part is; a refusal takes nothing from
  /// any part. Every part's limiter has this one's group. The decisions come back in the parts' order.
  func decideJointly(_ parts: [(limiter: any SharedKeyedLimiter, permits: Int)], for key: String) async throws
    -> [RateLimitDecision]
  /// Decides a middleware's request whose policies count, shadow or penalise (SPEC 4.2) in one step: the
  /// enforced parts all or nothing; a shadow part decided and kept when the request is granted, never refusing
  /// it; an enforced part with a penalty, refused by its rule, blocks the key; a refused request keeps nothing.
  /// Each grant kept can be given back (`UndoableDecision.giveBack()`). `nil`: not in one step here (the caller
  /// decides each part).
  func decideOperatedJointly(_ parts: [OperatedPart], for key: String) async throws -> [UndoableDecision]?
}

/// One policy of a middleware's request for ``JointlyDecidingLimiter/decideOperatedJointly(_:for:)``.
package struct OperatedPart: Sendable {
  package let limiter: any SharedKeyedLimiter
  package let permits: Int
  /// Decided and counted, never refusing the request.
  package let isShadow: Bool
  /// An enforced part's penalty; `nil` for none (and for a shadow part).
  package let penalty: Duration?

  package init(limiter: any SharedKeyedLimiter, permits: Int, isShadow: Bool, penalty: Duration?) {
    self.limiter = limiter
    self.permits = permits
    self.isShadow = isShadow
    self.penalty = isShadow ? nil : penalty
  }
}

/// A limiter that decides a request and penalises its refusal in one step (SPEC 4.2, "penalty"):
/// `KeyedRateLimiter` under its lock, `PostgresRateLimiter` in the decision's own round trip. RateLimitHTTP asks
/// it; not for apps.
package protocol PenalisingLimiter: SharedKeyedLimiter {
  /// Decides `permits` for `key` as `decideUndoably` does; refused by the rule (not by a block in force), the key
  /// is blocked for `penalty` from that instant, and the refusal reported after it (its `retryAfter` the block's
  /// end at least). A block in force is kept as it is, never extended.
  func decidePenalising(_ permits: Int, for key: String, penalty: Duration) async throws -> UndoableDecision
}
