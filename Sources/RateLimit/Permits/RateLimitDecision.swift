/// One decision, and what a client should be told about the key after it: what an HTTP response needs (the
/// `RateLimit` header fields, a 429's `Retry-After`) in one lock or one round trip.
///
/// ```swift
/// let limiter = KeyedRateLimiter<String>(limit: 10, per: .seconds(10))
/// let decision = limiter.decide(for: "alice")
/// if !decision.isGranted {
///   print("retry in", decision.retryAfter ?? .zero)
/// }
/// ```
///
/// `decide` grants exactly as `tryAcquire` does (same answer, same state after) and reports, after it:
///
/// | field | sliding window (N per T) | token bucket (N per T, burst B) |
/// | --- | --- | --- |
/// | `limit` | N | B |
/// | `window` | T | T |
/// | `remaining` | N − permits in (now − T, now]; 0 while anyone is booked ahead | whole permits in the bucket; 0 while anyone is booked ahead |
/// | `resetAfter` | until the last booking leaves the window | until the bucket is full with nothing booked ahead |
/// | `retryAfter` | refused: `retryAfter(permits)`; `nil` if granted or more than N | the same, against B |
/// | `effectiveWindow` | `remaining` taken now, until one more permit: until the oldest booking in (now − T, now] leaves (T if none) | `remaining` taken now, until what is accrued of the next permit makes a whole one |
/// | `quotaWindow` | T | B × T / N, the time to refill B |
///
/// With a booking ahead (or debt) `remaining` is 0 and `effectiveWindow` is `retryAfter(1)`. The RateLimit
/// header fields (draft-ietf-httpapi-ratelimit-headers-11) send `t` = `effectiveWindow` and the quota as
/// `q`/`w` over `quotaWindow` (SPEC 4.2, a correction to 4.1, which sent `resetAfter` and the burst over T).
public struct RateLimitDecision: Sendable, Equatable {
  /// Whether the permits were granted (and taken).
  public var isGranted: Bool
  /// The quota: N for a sliding window, B for a token bucket.
  public var limit: Int
  /// T, the rule's window.
  public var window: Duration
  /// After the decision: the most permits a request made now would get at once (0 if none).
  public var remaining: Int
  /// After the decision: how long until the key is at rest (as fresh) if nothing more comes; `.zero` if it is.
  public var resetAfter: Duration
  /// Refused: how long until the same request would be granted; `nil` if granted, or if it never can be (more
  /// than the capacity).
  public var retryAfter: Duration?
  /// Whether a `WhenUnavailable` policy answered (the store could not), rather than the store.
  public var isFallback: Bool
  /// After the decision: if a request took `remaining` permits now, how long until one more permit comes (the
  /// draft's `t`: within it the client can use no more than `remaining`); `.zero` with no limiting.
  public var effectiveWindow: Duration
  /// The time in which `limit` permits are allocated: `window` for a sliding window, B × T / N for a token
  /// bucket of N per T with burst B (the time it takes to refill).
  public var quotaWindow: Duration
  /// Whether this part of a request was not decided at all (another part was refused without a round trip, so
  /// nothing is known of this one now): the response's fields leave its policy out (SPEC 4.3.1, "fields tell
  /// what was decided").
  package var isUndecided = false

  /// A decision with every field given: for stores and policies outside this module.
  ///
  /// `effectiveWindow` defaults to `resetAfter` and `quotaWindow` to `window`: what an app's own limiter
  /// reports unless it says more (and what 4.1's call sites, which do not name them, mean).
  public init(
    isGranted: Bool, limit: Int, window: Duration, remaining: Int, resetAfter: Duration, retryAfter: Duration?,
    isFallback: Bool = false, effectiveWindow: Duration? = nil, quotaWindow: Duration? = nil
  ) {
    self.effectiveWindow = effectiveWindow ?? resetAfter
    self.quotaWindow = quotaWindow ?? window
    self.isGranted = isGranted
    self.limit = limit
    self.window = window
    self.remaining = remaining
    self.resetAfter = resetAfter
    self.retryAfter = retryAfter
    self.isFallback = isFallback
  }
}
