#if Hummingbird || Vapor
  import Metrics
  import RateLimit
  public import RateLimitHTTP

  /// A granted request's leases (`RateLimitGate.Leases`) as a middleware holds them until its response is done,
  /// counted by the swift-metrics gauge `ratelimit_in_flight{policy}`: the leases this process holds for that
  /// policy now (SPEC 4.4). `release()` gives them back and counts it, once; deallocation does the same, so a
  /// response dropped unwritten releases too.
  public final class HeldLeases: Sendable {
    private let leases: RateLimitGate.Leases
    private let isReleased = LockedValue(false)

    /// Holds `leases` and counts them in flight.
    public init(_ leases: RateLimitGate.Leases) {
      self.leases = leases
      InFlightGauges.shared.add(leases.policies, by: 1)
    }

    /// Whether there is nothing to release.
    public var isEmpty: Bool { leases.isEmpty }

    /// Releases the leases and counts them out of flight; the first call does, later calls do nothing.
    public func release() {
      let first = isReleased.withLock { released in
        defer { released = true }
        return !released
      }
      guard first else { return }
      leases.release()
      InFlightGauges.shared.add(leases.policies, by: -1)
    }

    deinit {
      release()
    }
  }

  /// `ratelimit_in_flight{policy}`: one count per policy name for the whole process (several middlewares may
  /// share a policy name, as they share its counters), recorded as it changes.
  package final class InFlightGauges: Sendable {
    package static let shared = InFlightGauges()

    private let counts = LockedValue([String: Int]())

    /// The count last recorded for `policy`: the gauge's value.
    package func count(for policy: String) -> Int {
      counts.withLock { $0[policy, default: 0] }
    }

    /// Adds `change` to each policy's count and records the new value. Recorded under the lock, so that the
    /// gauge's last value is the count's (two requests recording outside it could leave a stale value last).
    func add(_ policies: [String], by change: Int) {
      guard !policies.isEmpty else { return }
      counts.withLock { counts in
        for name in policies {
          let count = counts[name, default: 0] + change
          counts[name] = count == 0 ? nil : count
          Gauge(label: "ratelimit_in_flight", dimensions: [("policy", name)]).record(count)
        }
      }
    }
  }
#endif
