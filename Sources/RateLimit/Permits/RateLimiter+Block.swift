extension RateLimiter {
  /// Refuses everything from now until `duration` from now (that instant excluded), whatever the quota: a
  /// server said to wait (`Retry-After`), or the key misbehaved. A later block may extend it; one that ends no
  /// later than the current one changes nothing, and `.zero` changes nothing at all.
  ///
  /// While blocked, ``tryAcquire(_:)`` is `false`; ``decide(_:)`` is refused with `remaining` 0 and a
  /// `retryAfter` no earlier than the block's end; ``reserve(_:within:)`` and ``acquire(_:within:)`` book as
  /// the same request made at the block's end would (behind the bookings ahead, within `maxDelay` as usual);
  /// bookings made before the block keep their instants. Works on every limiter, one with a zero window too.
  ///
  /// An API client that follows the server's quota (RateLimitHTTP's `ServerQuota`):
  ///
  /// ```swift
  /// let api = RateLimiter(limit: 5_000, per: .seconds(3_600))
  /// try await api.acquire()
  /// let (status, fields) = try await send(request)
  /// api.block(for: ServerQuota(status: status, fields: fields).wait)
  /// ```
  ///
  /// - Parameter duration: How long from now; must not be negative (a trap names the value). A huge one
  ///   saturates at the 292-year horizon.
  /// - Complexity: O(1): one lock, one clock read.
  public func block(for duration: Duration) {
    requireNonNegative(duration, "duration", of: "RateLimiter")
    switch core {
    case .window(let core): core.block(for: duration)
    case .bucket(let core): core.block(for: duration)
    }
  }
}
