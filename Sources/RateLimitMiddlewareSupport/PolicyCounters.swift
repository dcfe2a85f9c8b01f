// RateLimitMiddlewareSupport is no product, so no app imports it: what both middlewares count and trace, written
// once. Its symbols are `public` and `@inlinable` only so that the middlewares inline them: Swift 6.3 inlines no
// `package` function across modules, which cost a request 73 instructions (callgrind, `--responder keyed`).
#if Hummingbird || Vapor
  public import Metrics
  public import RateLimitHTTP

  /// `ratelimit_requests{policy, decision}` for one list of policies: made once for a fixed list (swift-metrics
  /// is bootstrapped before the middleware is made), or made when counted for a list chosen per request
  /// (`select`), so that such a request makes only the counters it increments.
  public struct PolicyCounters: Sendable {
    @usableFromInline let names: [String]
    @usableFromInline let made: (granted: [Counter], refused: [String: Counter], unavailable: [Counter])?

    /// The counters of `policies`; `madeOnce`: made here, for every request to come.
    @inlinable public init(_ policies: [RateLimitPolicy], madeOnce: Bool) {
      names = policies.map(\.name)
      guard madeOnce else {
        made = nil
        return
      }
      made = (
        names.map { Self.counter($0, "granted") },
        Dictionary(names.map { ($0, Self.counter($0, "refused")) }) { first, _ in first },
        names.map { Self.counter($0, "unavailable") }
      )
    }

    /// Every policy granted, but the shadow policies in `shadowRefused` (counted as `shadow_refused`).
    @inlinable @inline(__always)
    public func countGranted(except shadowRefused: [String] = []) {
      guard shadowRefused.isEmpty else { return count(names.filter { !shadowRefused.contains($0) }, "granted") }
      guard let made else { return count(names, "granted") }
      for counter in made.granted { counter.increment() }
    }

    /// These shadow policies refused (the request went on, or another policy refused it).
    public func countShadowRefused(_ names: [String]) {
      count(names, "shadow_refused")
    }

    /// These enforced policies refused.
    public func countRefused(by refusedBy: [String]) {
      guard let made else { return count(refusedBy, "refused") }
      for name in refusedBy { made.refused[name]?.increment() }
    }

    /// A limiter threw while deciding.
    public func countUnavailable() {
      guard let made else { return count(names, "unavailable") }
      for counter in made.unavailable { counter.increment() }
    }

    @usableFromInline func count(_ policies: [String], _ decision: String) {
      for name in policies { Self.counter(name, decision).increment() }
    }

    @usableFromInline static func counter(_ policy: String, _ decision: String) -> Counter {
      Counter(label: "ratelimit_requests", dimensions: [("policy", policy), ("decision", decision)])
    }
  }

  /// One list of policies as a request takes from it: the gate, its counters, and the `RateLimit-Policy` field
  /// of its in-process grants (`RateLimitGate`'s, which never changes, so it is made with the gate) in the
  /// framework's own type.
  public struct PolicyList<Field: Sendable>: Sendable {
    /// The policies' gate.
    public let gate: RateLimitGate
    /// Their `ratelimit_requests` counters.
    public let counters: PolicyCounters
    /// The `RateLimit-Policy` field of an in-process grant; `nil` when the gate has no in-process fast path.
    public let policyField: Field?

    /// The list of `gate`'s policies, with counters made now (`madeOnce`) or when counted.
    @inlinable public init(_ gate: RateLimitGate, madeOnce: Bool, policyField: Field?) {
      self.gate = gate
      counters = PolicyCounters(gate.policies, madeOnce: madeOnce)
      self.policyField = policyField
    }
  }
#endif
