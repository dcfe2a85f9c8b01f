public import RateLimit

/// A named limit on requests: `permits` from `limiter` per request, for the request's key. `name` is its
/// identifier in the RateLimit header fields (`RateLimit-Policy: "search";q=10;w=10`).
///
/// ```swift
/// let searches = KeyedRateLimiter<String>(limit: 10, per: .seconds(10))
/// let policy = RateLimitPolicy("search", searches)
/// ```
///
/// The limiter is any `SharedKeyedLimiter`: an in-process `KeyedRateLimiter<String>` or a shared
/// `PostgresRateLimiter`. One limiter may serve several policies (and routes): they then share its quota.
public struct RateLimitPolicy: Sendable {
  /// The policy's identifier in the header fields (sent as a Structured Field string: quotes and backslashes
  /// escaped, anything outside printable ASCII sent as `?`).
  public let name: String
  /// How many permits one request takes; at least 1.
  public let permits: Int
  /// The limiter that decides.
  public let limiter: any SharedKeyedLimiter
  /// Which granted requests keep their permits (``RateLimitCounting``); `.every` by default.
  public let counting: RateLimitCounting
  /// Whether the policy refuses (`.enforce`, the default) or only says what it would refuse (`.shadow`).
  public let mode: RateLimitPolicyMode
  /// How long a key is blocked on ``limiter`` after this policy refuses it by its rule; `nil`: not at all.
  public let penalty: Duration?
  /// The concurrency limiter of a policy made with ``init(_:concurrency:permits:mode:)``; `nil` for a rate policy.
  package let concurrency: (any SharedConcurrencyLimiter)?

  /// - Parameters:
  ///   - name: The identifier in the header fields.
  ///   - limiter: The limiter that decides, per key.
  ///   - permits: Permits one request takes; at least 1 (anything else traps, naming the value).
  ///   - counting: Which granted requests keep their permits, by the response's status (``RateLimitCounting``):
  ///     `.failures` for a login limit. The others' are given back exactly after the route answers.
  ///   - mode: `.shadow` to decide and count the policy without ever refusing (``RateLimitPolicyMode``).
  ///   - penalty: When an enforced policy refuses a request by its rule (not by a block already in force), the
  ///     key is blocked on `limiter` for this long from then (`OperableKeyedLimiter.block(_:for:)`); refusals
  ///     during the block do not extend it, and the refusal's `Retry-After` reports the block's end. Set as the
  ///     limiter refuses: `KeyedRateLimiter` in the same step, `PostgresRateLimiter` in the refusal's own round
  ///     trip (an app's own limiter is blocked after the refusal, and cannot tell a block's refusals from the
  ///     rule's). Not negative; the limiter must be an `OperableKeyedLimiter` (both checked here: a trap names
  ///     the value).
  ///
  /// ```swift
  /// // 5 failed attempts per 15 minutes per address, then blocked for an hour; a success costs nothing.
  /// let logins = KeyedRateLimiter<String>(limit: 5, per: .seconds(900))
  /// let login = RateLimitPolicy(
  ///   "login", logins, counting: .failures, penalty: .seconds(3_600))
  /// ```
  public init(
    _ name: String, _ limiter: some SharedKeyedLimiter, permits: Int = 1, counting: RateLimitCounting = .every,
    mode: RateLimitPolicyMode = .enforce, penalty: Duration? = nil
  ) {
    self.init(name, limiter: limiter, permits: permits, counting: counting, mode: mode, penalty: penalty)
  }

  /// The same policy taking another number of permits (a request's cost): an export route that costs 5.
  ///
  /// ```swift
  /// .limit(user.id, isExport ? plan.permits(5) : plan)
  /// ```
  ///
  /// - Parameter permits: At least 1 (anything else traps, naming the value).
  public func permits(_ permits: Int) -> RateLimitPolicy {
    RateLimitPolicy(
      name, limiter: limiter, permits: permits, counting: counting, mode: mode, penalty: penalty,
      concurrency: concurrency)
  }

  /// A policy over an existential limiter (``permits(_:)``), checked.
  init(
    _ name: String, limiter: any SharedKeyedLimiter, permits: Int, counting: RateLimitCounting,
    mode: RateLimitPolicyMode, penalty: Duration?, concurrency: (any SharedConcurrencyLimiter)? = nil
  ) {
    if permits < 1 { fatalError("RateLimitPolicy: permits must be at least 1, got permits: \(permits)") }
    if let penalty {
      if penalty < .zero { fatalError("RateLimitPolicy: penalty must not be negative, got penalty: \(penalty)") }
      if !(limiter is any OperableKeyedLimiter) {
        fatalError(
          "RateLimitPolicy: a penalty needs an OperableKeyedLimiter (one that can block a key), got \(type(of: limiter))"
        )
      }
    }
    self.name = name
    self.limiter = limiter
    self.permits = permits
    self.counting = counting
    self.mode = mode
    self.penalty = penalty
    self.concurrency = concurrency
  }

  /// Whether the policy is decided as in 4.1: a rate policy, enforced, every grant kept, no penalty (the fast
  /// paths). A concurrency policy is not: its lease is handed to the caller (``RateLimitGate/Leases``).
  package var isPlain: Bool { counting.keepsEvery && !mode.isShadow && penalty == nil && concurrency == nil }
}

/// Which header fields a limited response carries: ``ietf`` (the default) or ``none``.
///
/// A struct over a private kind, as Hummingbird's configuration types are, so that later releases can add
/// choices (another draft revision, say) without breaking code that names these two.
public struct RateLimitHeaders: Sendable, Hashable {
  private enum Kind: Sendable, Hashable {
    case ietf
    case none
  }

  private let kind: Kind

  /// `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-11), one list member per policy in
  /// the order given. The default.
  public static let ietf = RateLimitHeaders(kind: .ietf)
  /// None (a refusal still carries `Retry-After`).
  public static let none = RateLimitHeaders(kind: .none)

  /// Whether responses carry the RateLimit fields.
  package var addsRateLimitFields: Bool { kind == .ietf }
}
