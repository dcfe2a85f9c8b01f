extension RateLimiter {
  /// Decides as ``tryAcquire(_:)`` does (same answer, same state after) and reports what a response needs about
  /// the limiter after it, in one lock and one clock read.
  ///
  /// ```swift
  /// let decision = limiter.decide()
  /// if !decision.isGranted { reject(retryAfter: decision.retryAfter) }
  /// ```
  ///
  /// - Parameter permits: At least 1 (anything else traps, naming the value). More than the capacity is refused
  ///   with `retryAfter` `nil`.
  /// - Returns: The decision; ``RateLimitDecision`` shows what each field means for each rule.
  /// - Complexity: As ``tryAcquire(_:)``, plus O(bookings in the window) for a sliding window's `remaining`.
  public func decide(_ permits: Int = 1) -> RateLimitDecision {
    door.check(permits)
    let verdict: PermitVerdict =
      switch core {
      case .window(let core): core.decide(permits)
      case .bucket(let core): core.decide(permits)
      }
    return door.report(verdict)
  }
}
