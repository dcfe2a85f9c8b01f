/// Why ``RateLimiter/acquire(_:within:)`` (or ``KeyedRateLimiter/acquire(_:for:within:)``) refused at once,
/// without waiting and without booking anything, or why a concurrency limiter's `acquire` gave up waiting.
public enum RateLimiterError: Error, Sendable, Hashable {
  /// More permits than the limiter can ever grant at once: more than `limit` (sliding window) or `burst` (token
  /// bucket).
  case exceedsCapacity(requested: Int, capacity: Int)
  /// The permits could be granted, but only after `delay`, later than the `maxDelay` the caller allowed.
  case exceedsMaxDelay(delay: Duration, maxDelay: Duration)
  /// A concurrency limiter's `acquire(within:)` was not served within `maxWait`; it took nothing.
  case waitedTooLong(maxWait: Duration)
}
