/// Changing the limit without losing state (SPEC 4.2): the same rule, new parameters from now on.
///
/// | | a sliding window | a token bucket |
/// |---|---|---|
/// | what it had taken | the bookings in (now − old window, ∞) count against the new limit and window | the credit accrued at the old rate, capped by the new burst (debt kept) |
/// | at rest at the update | at rest | full at the new burst |
/// | bookings ahead | keep their instants | keep their instants |
///
/// ```swift
/// let search = RateLimiter(limit: 10, per: .seconds(60))
/// search.update(limit: 20, per: .seconds(60))   // a better plan
/// search.limit                                   // 20
/// ```
extension RateLimiter {
  /// New parameters from now on, for a sliding window: ``limit`` and ``window`` report them, and what the
  /// limiter has taken stays taken (see the table above).
  ///
  /// - Parameters:
  ///   - limit: N, at least 1 (checked as the initializer does, naming the value).
  ///   - window: T; must not be negative. `.zero`: no limiting from now on.
  /// - Precondition: The limiter is a sliding window (a token bucket takes ``update(limit:per:burst:)``; the trap
  ///   names both rules).
  public func update(limit: Int, per window: Duration) {
    update(door.update(limit: limit, window: window, burst: nil))
  }

  /// New parameters from now on, for a token bucket: ``limit``, ``window`` and ``burst`` report them; the credit
  /// accrued so far counts at the old rate, a full bucket is full at the new burst, any other credit (or debt)
  /// is kept, capped by the new burst.
  ///
  /// - Parameters:
  ///   - limit: N, permits refilled per `window`; at least 1.
  ///   - window: T; must not be negative. `.zero`: no limiting from now on.
  ///   - burst: B, at least 1.
  /// - Precondition: The limiter is a token bucket (the trap names both rules).
  public func update(limit: Int, per window: Duration, burst: Int) {
    update(door.update(limit: limit, window: window, burst: burst))
  }

  private func update(_ parameters: PermitParameters) {
    core.operate {
      $0.update(to: parameters)
    } bucket: {
      $0.update(to: parameters)
    }
  }
}
