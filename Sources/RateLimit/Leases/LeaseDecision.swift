/// One concurrency decision, and what a client should be told about the key after it.
///
/// | | granted | refused |
/// |---|---|---|
/// | ``lease`` | the lease | `nil` |
/// | ``remaining`` | `limit − inUse` after it | the same, taking nothing |
///
/// `remaining` is 0 when the permits in use reach the limit (or exceed a lowered one) and while anyone waits for
/// the key: `tryAcquire` never jumps the line.
public struct LeaseDecision: Sendable {
  /// The lease; `nil`: refused.
  public let lease: Lease?
  /// `lease != nil`.
  public var isGranted: Bool { lease != nil }
  /// The limit that decided.
  public let limit: Int
  /// After it: the most permits `tryAcquire` would get now.
  public let remaining: Int
  /// Answered by a `WhenUnavailable` policy, not by the shared store.
  public let isFallback: Bool
  /// Refused only because the shared store could not be reached and its policy denies (`.deny`): not a quota,
  /// so a middleware answers 503, as for a rate limiter's (SPEC 4.3.1, "fail closed is not a quota").
  package let isUnavailable: Bool

  /// A decision as a limiter reports it.
  public init(lease: Lease?, limit: Int, remaining: Int, isFallback: Bool = false) {
    self.init(lease: lease, limit: limit, remaining: remaining, isFallback: isFallback, isUnavailable: false)
  }

  /// A decision; `isUnavailable`: a `.deny` policy's refusal while the store cannot be reached.
  package init(lease: Lease?, limit: Int, remaining: Int, isFallback: Bool, isUnavailable: Bool) {
    self.lease = lease
    self.limit = limit
    self.remaining = remaining
    self.isFallback = isFallback
    self.isUnavailable = isUnavailable
  }
}
