#if Hummingbird || Vapor
  package import Logging
  public import Metrics
  public import RateLimitHTTP
  package import Tracing

  /// How long a request's decision took (`ratelimit_decision_duration`, a Timer) and which policies a fallback
  /// answered (`ratelimit_fallback{policy}`), as both middlewares record them (SPEC 4.2, "Observability").
  public struct DecisionTiming: Sendable {
    /// `ratelimit_decision_duration`.
    public let duration = Timer(label: "ratelimit_decision_duration")

    /// The timer and counters, made once per middleware.
    @inlinable public init() {}

    /// The instant a decision starts, for ``record(since:fallbacks:)``.
    @inlinable public static var start: UInt64 { monotonicNanoseconds() }

    /// Records a decision started at `start`, and counts the policies a fallback answered.
    @inlinable public func record(since start: UInt64, fallbacks: [String] = []) {
      duration.recordNanoseconds(Int64(truncatingIfNeeded: monotonicNanoseconds() &- start))
      for name in fallbacks { Counter(label: "ratelimit_fallback", dimensions: [("policy", name)]).increment() }
    }
  }

  extension PolicyList {
    /// A request the gate decides asynchronously (not in process), recorded: its duration and fallbacks in
    /// `timing`, its shadow refusals counted and logged on `logger`. A failure is a store that could not decide
    /// (`.throwError`), recorded as unavailable: the gate took back every other grant of the request, and the
    /// middleware answers `RateLimitGate.answer(unavailable:key:refusal:)` (503, `Retry-After: 1`, no RateLimit
    /// fields); so is `RateLimitGate.Unavailable`, a `.deny` that could not reach its store, whose fallback
    /// decisions are counted as well.
    /// Not inlined: the path of a round trip (or of counting, shadow and penalised policies), where one more
    /// async frame is nothing beside the decision.
    package func decideRequest(
      key: String, since start: UInt64, timing: DecisionTiming, logger: Logger,
      in context: ServiceContext? = ServiceContext.current
    ) async -> Result<RateLimitGate.Decided, any Error> {
      let result: RateLimitGate.Decided
      do {
        result = try await gate.decideRequest(key: key)
      } catch {
        timing.record(since: start, fallbacks: (error as? RateLimitGate.Unavailable)?.fallbacks ?? [])
        recordUnavailable(in: context)
        return .failure(error)
      }
      timing.record(since: start, fallbacks: result.fallbacks)
      recordShadowRefused(result.shadowRefused, key: key, on: logger)
      return .success(result)
    }
  }
#endif
