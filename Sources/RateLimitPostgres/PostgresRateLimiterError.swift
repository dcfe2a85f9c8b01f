#if Postgres
  /// Why a ``PostgresRateLimiter`` request failed.
  ///
  /// | case | when | policy applies |
  /// |---|---|---|
  /// | ``unavailable(underlying:)`` | no answer within `timeout`, a refused or lost connection, a server shutting down or restarting | yes: thrown only with ``PostgresRateLimiter/WhenUnavailable/throwError`` (and by `acquire` with `.deny`) |
  /// | ``exceedsCapacity(requested:capacity:)`` | more permits than `limit` (window) or `burst` (bucket) | no |
  /// | ``exceedsMaxDelay(delay:maxDelay:)`` | `acquire` would wait longer than `within` | no |
  /// | ``invalidKey(reason:)`` | a key longer than 1,024 UTF-8 bytes, refused without a round trip | no |
  ///
  /// An error that says a statement itself is wrong (a missing table: call ``PostgresRateLimiter/prepare()``; a
  /// missing privilege) is a bug, not an outage: it is thrown as PostgresNIO's own error, whatever the policy.
  public enum PostgresRateLimiterError: Error, Sendable {
    /// No answer within `timeout`, or the connection failed (refused, lost, server shutting down or restarting:
    /// SQLSTATE classes 08, 53, 57, 58).
    case unavailable(underlying: any Error)
    /// More than the capacity: `limit` for a sliding window, `burst` for a token bucket. Nothing is booked.
    case exceedsCapacity(requested: Int, capacity: Int)
    /// The booking would be later than `now + maxDelay`. Nothing is booked.
    case exceedsMaxDelay(delay: Duration, maxDelay: Duration)
    /// The key is longer than 1,024 UTF-8 bytes.
    case invalidKey(reason: String)
  }

  /// The timeout of a decision passed without an answer.
  struct DecisionTimedOut: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "the database did not answer within \(timeout)" }
  }
#endif
