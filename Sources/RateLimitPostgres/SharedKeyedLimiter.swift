#if Postgres
  public import RateLimit

  /// The in-process `KeyedRateLimiter` and the shared ``PostgresRateLimiter`` behind one protocol, so that server
  /// code (a middleware) takes either.
  ///
  /// ```swift
  /// func admit(
  ///   _ key: String, by limiter: some SharedKeyedLimiter
  /// ) async throws -> Duration? {
  ///   if try await limiter.tryAcquire(1, for: key) { return nil }
  ///   // Refused: how long until a retry can succeed (Retry-After).
  ///   return try await limiter.retryAfter(1, for: key)
  ///     ?? .seconds(3600)
  /// }
  /// ```
  ///
  /// The article "One limit across a fleet" shows a middleware for Hummingbird and for Vapor.
  public protocol SharedKeyedLimiter: Sendable {
    /// Takes `permits` for `key` now if they can be granted now; never waits, never books for later.
    func tryAcquire(_ permits: Int, for key: String) async throws -> Bool
    /// How long a request for `permits` made now would wait (`.zero`: granted now); `nil` if it never can.
    func retryAfter(_ permits: Int, for key: String) async throws -> Duration?
  }

  extension PostgresRateLimiter: SharedKeyedLimiter {}
  extension KeyedRateLimiter: SharedKeyedLimiter where Key == String {}
#endif
