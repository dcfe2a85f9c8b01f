#if Vapor
  import Metrics
  import RateLimitHTTP

  /// `ratelimit_requests{policy, decision}` for one list of policies: made once for a fixed list (swift-metrics
  /// is bootstrapped before the middleware is made), or made when counted for a list chosen per request
  /// (`select`), so that such a request makes only the counters it increments.
  struct PolicyCounters: Sendable {
    private let names: [String]
    private let made: (granted: [Counter], refused: [String: Counter], unavailable: [Counter])?

    /// The counters of `policies`; `madeOnce`: made here, for every request to come.
    init(_ policies: [RateLimitPolicy], madeOnce: Bool) {
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
    func countGranted(except shadowRefused: [String] = []) {
      guard shadowRefused.isEmpty else { return count(names.filter { !shadowRefused.contains($0) }, "granted") }
      guard let made else { return count(names, "granted") }
      for counter in made.granted { counter.increment() }
    }

    /// These shadow policies refused (the request went on, or another policy refused it).
    func countShadowRefused(_ names: [String]) {
      count(names, "shadow_refused")
    }

    /// These enforced policies refused.
    func countRefused(by refusedBy: [String]) {
      guard let made else { return count(refusedBy, "refused") }
      for name in refusedBy { made.refused[name]?.increment() }
    }

    /// A limiter threw while deciding.
    func countUnavailable() {
      guard let made else { return count(names, "unavailable") }
      for counter in made.unavailable { counter.increment() }
    }

    private func count(_ policies: [String], _ decision: String) {
      for name in policies { Self.counter(name, decision).increment() }
    }

    private static func counter(_ policy: String, _ decision: String) -> Counter {
      Counter(label: "ratelimit_requests", dimensions: [("policy", policy), ("decision", decision)])
    }
  }
#endif
