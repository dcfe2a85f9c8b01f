/// What a middleware answers when the route does not run, without a framework: the status, the header fields,
/// a short body (plain text, or problem details for a refusal), and what to log. Each middleware only translates it into its framework's types
/// (and counts it in its metrics).
///
/// | the request | status | fields | logged |
/// | --- | --- | --- | --- |
/// | refused by a policy | 429 Too Many Requests | `Retry-After`, the RateLimit fields | `debug`: policies, key, wait |
/// | a key over 1,024 UTF-8 bytes | 400 Bad Request | none | no |
/// | a limiter threw while deciding, or `.deny` could not reach its store | 503 Service Unavailable | `Retry-After: 1` | `warning`: key, error |
/// | a body over `maxBodySize` (a `select` that reads it) | 413 Content Too Large | none | no |
public struct RateLimitAnswer: Sendable {
  /// How loud a log line is.
  public enum LogLevel: Sendable, Equatable {
    case debug
    case warning
  }

  /// The line a middleware logs on the request's logger.
  public struct LogLine: Sendable {
    /// The level.
    public let level: LogLevel
    /// The message.
    public let message: String
    /// Its metadata, by key (`ratelimit.policy`, `ratelimit.key`, `ratelimit.retry_after`, `error`).
    public let metadata: [(key: String, value: String)]
  }

  /// The status code.
  public let status: Int
  /// The header fields, in order (without `Content-Type`).
  public let fields: [(name: String, value: String)]
  /// The body.
  public let body: String
  /// What to log, if anything.
  public let log: LogLine?
  /// The body's content type: `text/plain; charset=utf-8`, or `application/problem+json` for a refusal or a
  /// 503 with ``RateLimitRefusalBody/problemDetails``.
  public var contentType = "text/plain; charset=utf-8"
}

extension RateLimitGate {
  /// The answer for an outcome the route does not run for (a refusal, a bad request); `nil` for a grant.
  public func answer(for outcome: Outcome, key: String) -> RateLimitAnswer? {
    switch outcome {
    case .granted: return nil
    case .refused(let refusal):
      let metadata = [
        (key: "ratelimit.policy", value: refusal.refusedBy.joined(separator: ",")),
        (key: "ratelimit.key", value: key),
        (key: "ratelimit.retry_after", value: refusal.retryAfter.map { "\($0)" } ?? "never"),
      ]
      let (contentType, body) = self.refusal.body(refusedBy: refusal.refusedBy)
      return RateLimitAnswer(
        status: 429, fields: refusal.fields, body: body,
        log: .init(level: .debug, message: "rate limit: request refused", metadata: metadata),
        contentType: contentType)
    case .badRequest:
      return RateLimitAnswer(
        status: 400, fields: [], body: "Bad Request: the rate limit key is too long\n", log: nil)
    }
  }

  /// The answer when a request's body is over `maxBodySize` bytes, for a middleware's `select` that reads it
  /// (SPEC 4.3.1): 413 Content Too Large (RFC 9110's name for 4.1's "Payload Too Large"), no fields, no decision
  /// made, not logged.
  public static func answer(bodyOver maxBodySize: Int) -> RateLimitAnswer {
    RateLimitAnswer(
      status: 413, fields: [], body: "Content Too Large: the body is over \(maxBodySize) bytes\n", log: nil)
  }

  /// The answer when ``decide(key:)`` threw (a store that cannot decide, `.throwError`; or ``Unavailable``, a
  /// `.deny` that could not reach its store): 503 with `Retry-After: 1`, no RateLimit fields; the gate has taken
  /// back the request's other grants. The body is plain text (``answer(unavailable:key:refusal:)`` with `.text`).
  public static func answer(unavailable error: any Error, key: String) -> RateLimitAnswer {
    answer(unavailable: error, key: key, refusal: .text)
  }

  /// ``answer(unavailable:key:)`` with its body as `refusal` says: `Service Unavailable` as plain text, or with
  /// ``RateLimitRefusalBody/problemDetails`` the draft's `temporary-reduced-capacity` problem type (SPEC 4.1.1).
  public static func answer(unavailable error: any Error, key: String, refusal: RateLimitRefusalBody)
    -> RateLimitAnswer
  {
    let (contentType, body) = refusal.unavailableBody()
    return RateLimitAnswer(
      status: 503, fields: unavailableFields, body: body,
      log: .init(
        level: .warning, message: "rate limit: the store could not decide; answering 503",
        metadata: [(key: "ratelimit.key", value: key), (key: "error", value: "\(error)")]),
      contentType: contentType)
  }
}
