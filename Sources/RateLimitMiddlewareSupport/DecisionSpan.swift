#if Hummingbird || Vapor
  public import RateLimitHTTP
  public import Tracing

  /// The request's decision on its tracing span (swift-distributed-tracing), when it has one: the framework's
  /// tracing middleware, added before this one, started it (SPEC 4.2, "Observability").
  ///
  /// | attribute | value |
  /// |---|---|
  /// | `ratelimit.policy` | the names of the policies decided (a string array) |
  /// | `ratelimit.decision` | `granted`, `refused` or `unavailable` |
  /// | `ratelimit.retry_after` | refused: `Retry-After` in whole seconds (an integer) |
  public enum DecisionSpan: Sendable {
    /// Sets the attributes on the span active in `context`, if any; costs one task-local read without one.
    @inlinable @inline(__always)
    public static func record(
      _ policies: [RateLimitPolicy], _ decision: String, retryAfter: Duration? = nil,
      in context: ServiceContext? = ServiceContext.current
    ) {
      guard let context, let span = InstrumentationSystem.tracer.activeSpan(identifiedBy: context) else { return }
      span.attributes["ratelimit.policy"] = SpanAttribute.stringArray(policies.map(\.name))
      span.attributes["ratelimit.decision"] = SpanAttribute.string(decision)
      if let retryAfter {
        span.attributes["ratelimit.retry_after"] = SpanAttribute.int64(
          Int64(max(1, RateLimitFields.wholeSeconds(retryAfter))))
      }
    }
  }
#endif
