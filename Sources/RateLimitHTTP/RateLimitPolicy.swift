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

  /// - Parameters:
  ///   - name: The identifier in the header fields.
  ///   - limiter: The limiter that decides, per key.
  ///   - permits: Permits one request takes; at least 1 (anything else traps, naming the value).
  public init(_ name: String, _ limiter: some SharedKeyedLimiter, permits: Int = 1) {
    if permits < 1 { fatalError("RateLimitPolicy: permits must be at least 1, got permits: \(permits)") }
    self.name = name
    self.limiter = limiter
    self.permits = permits
  }

  /// The same policy taking another number of permits (a request's cost): an export route that costs 5.
  ///
  /// ```swift
  /// .limit(user.id, isExport ? plan.permits(5) : plan)
  /// ```
  ///
  /// - Parameter permits: At least 1 (anything else traps, naming the value).
  public func permits(_ permits: Int) -> RateLimitPolicy {
    RateLimitPolicy(name, limiter: limiter, permits: permits)
  }

  /// A policy over an existential limiter (``permits(_:)``).
  private init(_ name: String, limiter: any SharedKeyedLimiter, permits: Int) {
    if permits < 1 { fatalError("RateLimitPolicy: permits must be at least 1, got permits: \(permits)") }
    self.name = name
    self.limiter = limiter
    self.permits = permits
  }
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
