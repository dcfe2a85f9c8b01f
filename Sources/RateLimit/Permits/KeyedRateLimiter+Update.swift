/// Changing the limit of every key at once, without losing state (SPEC 4.2). Each key follows
/// `RateLimiter`'s rules for an update (``RateLimiter/update(limit:per:)``): a sliding window's bookings in
/// (now − old window, ∞) count against the new parameters; a token bucket's credit is kept, capped by the new
/// burst, and a full bucket is full at the new burst.
///
/// ```swift
/// let plans = KeyedRateLimiter<String>(limit: 300, per: .seconds(60))
/// plans.update(limit: 600, per: .seconds(60))   // every key, at once
/// ```
extension KeyedRateLimiter {
  /// New parameters from now on, for a sliding window; every key keeps what it has taken.
  ///
  /// - Parameters:
  ///   - limit: N, at least 1 (checked as the initializer does, naming the value).
  ///   - window: T; must not be negative. `.zero`: no limiting from now on.
  /// - Precondition: The limiter is a sliding window (the trap names both rules).
  /// - Complexity: O(1) however many keys are held (their logs need no change).
  public func update(limit: Int, per window: Duration) {
    update(door.update(limit: limit, window: window, burst: nil))
  }

  /// New parameters from now on, for a token bucket; every key keeps its credit (capped by the new burst).
  ///
  /// - Parameters:
  ///   - limit: N, permits refilled per `window`; at least 1.
  ///   - window: T; must not be negative. `.zero`: no limiting from now on.
  ///   - burst: B, at least 1.
  /// - Precondition: The limiter is a token bucket (the trap names both rules).
  /// - Complexity: O(1) however many keys are held: each key's credit is brought under the new rule when the
  ///   key is next used, as the update would have left it. An update made at the very instant of the clock's
  ///   previous reading, or after the clock stepped back past it, or with a zero window before or after, or
  ///   the 33rd made before the keys were used again, brings every key under it at once instead (O(keys held)),
  ///   the answers the same.
  public func update(limit: Int, per window: Duration, burst: Int) {
    update(door.update(limit: limit, window: window, burst: burst))
  }

  private func update(_ parameters: PermitParameters) {
    store.operate {
      $0.update(to: parameters)
    } bucket: {
      $0.update(to: parameters)
    }
  }
}
