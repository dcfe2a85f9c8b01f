#if Hummingbird || Vapor
  public import Logging
  public import RateLimitHTTP
  public import Tracing

  extension PolicyList {
    /// Granted by every policy but the shadow policies in `shadowRefused`: counted, and on the span.
    public func recordGranted(except shadowRefused: [String], in context: ServiceContext? = ServiceContext.current) {
      counters.countGranted(except: shadowRefused)
      DecisionSpan.record(gate.policies, "granted", in: context)
    }

    /// Refused: counted by the policies that refused, and on the span with its `Retry-After`.
    public func recordRefused(_ refusal: RateLimitGate.Refusal, in context: ServiceContext? = ServiceContext.current) {
      counters.countRefused(by: refusal.refusedBy)
      DecisionSpan.record(gate.policies, "refused", retryAfter: refusal.retryAfter, in: context)
    }

    /// A limiter threw while deciding: counted, and on the span.
    public func recordUnavailable(in context: ServiceContext? = ServiceContext.current) {
      counters.countUnavailable()
      DecisionSpan.record(gate.policies, "unavailable", in: context)
    }

    /// Shadow policies that would have refused `key`'s request: counted (`shadow_refused`) and logged at `debug`,
    /// as single refusals are (SPEC 4.3.1, "Outages are visible"; 4.2 logged them at `info`).
    public func recordShadowRefused(_ names: [String], key: String, on logger: Logger) {
      guard !names.isEmpty else { return }
      counters.countShadowRefused(names)
      logger.debug(
        "shadow rate limit policies would have refused",
        metadata: ["policies": .string(names.joined(separator: ",")), "key": .string(key)])
    }
  }
#endif
