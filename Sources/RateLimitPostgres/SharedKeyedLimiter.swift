#if Postgres
  public import RateLimit

  /// The in-process ``KeyedRateLimiter`` and the shared ``PostgresRateLimiter`` behind one protocol, so that server
  /// code (a middleware) takes either.
  ///
  /// ```swift
  /// func limit(_ request: Request, by limiter: some SharedKeyedLimiter) async throws -> Response? {
  ///   if try await limiter.tryAcquire(1, for: request.clientID) { return nil }   // go on
  ///   let wait = try await limiter.retryAfter(1, for: request.clientID) ?? .seconds(60)
  ///   return Response(status: 429, retryAfterSeconds: wait.wholeSecondsRoundedUp)
  /// }
  /// ```
  public protocol SharedKeyedLimiter: Sendable {
    /// Takes `permits` for `key` now if they can be granted now; never waits, never books for later.
    func tryAcquire(_ permits: Int, for key: String) async throws -> Bool
    /// How long a request for `permits` made now would wait (`.zero`: granted now); `nil` if it never can.
    func retryAfter(_ permits: Int, for key: String) async throws -> Duration?
  }

  extension PostgresRateLimiter: SharedKeyedLimiter {}
  extension KeyedRateLimiter: SharedKeyedLimiter where Key == String {}
#endif
