public import RateLimit

extension RateLimitPolicy {
  /// At most `limiter.limit` of a key's requests in flight: the request's lease is taken with its other
  /// policies and released when its response is done.
  ///
  /// ```swift
  /// let inFlight = KeyedConcurrencyLimiter<String>(limit: 4)
  /// .limit(team, RateLimitPolicy("rpm", requests), RateLimitPolicy("inflight", concurrency: inFlight))
  /// ```
  ///
  /// Decided with the request's other policies, all or nothing (SPEC 4.4): a request refused by any policy holds
  /// no lease, and a refused lease takes back the rate policies' grants. A granted request holds its lease until
  /// its response is done (``RateLimitGate/Leases``): the middlewares release it after the route returns, or for
  /// a streamed body once its last byte is written, its writer fails or the client goes away; at once when the
  /// route throws.
  ///
  /// | | the fields | a refusal |
  /// |---|---|---|
  /// | | `RateLimit-Policy: "inflight";q=4;qu="concurrent-requests"`, `RateLimit: "inflight";r=2` (no `w`, no `t`) | 429, `Retry-After: 1` (or a refusing rate policy's longer wait) |
  ///
  /// `counting` and `penalty` do not apply (a lease is always given back); ``permits(_:)`` keeps it a concurrency
  /// policy; `.shadow` decides, counts `shadow_refused` and never refuses (a granted shadow lease is held and
  /// released as an enforced one is). Decided by the limiter's `decide`, so the fields cost no second round trip.
  ///
  /// - Parameters:
  ///   - name: The identifier in the header fields.
  ///   - limiter: The concurrency limiter, per key: a `KeyedConcurrencyLimiter<String>` in process, a
  ///     `PostgresConcurrencyLimiter` across a fleet.
  ///   - permits: Permits one request holds; at least 1 (anything else traps, naming the value).
  ///   - mode: `.shadow` to decide and count the policy without ever refusing.
  public init(
    _ name: String, concurrency limiter: some SharedConcurrencyLimiter, permits: Int = 1,
    mode: RateLimitPolicyMode = .enforce
  ) {
    self.init(
      name, limiter: ConcurrencyPolicyLimiter(limiter: limiter), permits: permits, counting: .every, mode: mode,
      penalty: nil, concurrency: limiter)
  }
}

/// A concurrency limiter as a policy's ``RateLimitPolicy/limiter``: what a rate policy's code path may ask of it.
/// The gate decides a concurrency policy through ``decideHolding(_:for:)``, which keeps the lease; the
/// `SharedKeyedLimiter` requirements report the same decision but hold nothing (a lease they take is released at
/// once).
struct ConcurrencyPolicyLimiter: SharedKeyedLimiter {
  /// The limiter that decides.
  let limiter: any SharedConcurrencyLimiter

  /// What a refusal asks a client to wait: no instant can be known, so a second (SPEC 4.4).
  static let refusalWait = Duration.seconds(1)

  /// The decision, the way to take it back (release its lease), and the lease the request then holds.
  func decideHolding(_ permits: Int, for key: String) async throws -> (made: UndoableDecision, lease: Lease?) {
    let leaseDecision = try await limiter.decide(permits, for: key)
    let decision = Self.decision(leaseDecision, permits: permits)
    guard let lease = leaseDecision.lease else { return (UndoableDecision(decision, undo: nil), nil) }
    let made = UndoableDecision(decision) {
      lease.release()
      var after = decision
      after.remaining = min(decision.limit, decision.remaining + lease.permits)
      return after
    }
    return (made, lease)
  }

  /// A lease decision for `permits` as the gate's fields and refusals read it: no window; a refusal waits a
  /// second, or never (`nil`) when `permits` exceed the limit or the store could not be reached under `.deny`
  /// (which the gate answers as unavailable, a 503: `RateLimitGate.isUnreachable`).
  static func decision(_ decision: LeaseDecision, permits: Int) -> RateLimitDecision {
    let waitsNever = decision.isGranted || permits > decision.limit || decision.isUnavailable
    return RateLimitDecision(
      isGranted: decision.isGranted, limit: decision.limit, window: .zero, remaining: decision.remaining,
      resetAfter: .zero, retryAfter: waitsNever ? nil : refusalWait,
      isFallback: decision.isFallback)
  }

  func tryAcquire(_ permits: Int, for key: String) async throws -> Bool {
    try await limiter.tryAcquire(permits, for: key) != nil
  }

  func retryAfter(_ permits: Int, for key: String) async throws -> Duration? {
    if permits > limiter.limit { return nil }
    return try await limiter.inUse(for: key) + permits <= limiter.limit ? .zero : Self.refusalWait
  }

  func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision {
    Self.decision(try await limiter.decide(permits, for: key), permits: permits)
  }
}
