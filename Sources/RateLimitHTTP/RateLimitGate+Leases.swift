package import RateLimit

extension RateLimitGate {
  /// What a granted request holds until its response is done: the leases of its concurrency policies
  /// (``RateLimitPolicy/init(_:concurrency:permits:mode:)``), none for a request without any.
  ///
  /// ```swift
  /// let (outcome, leases) = try await gate.decideHolding(key: key)
  /// if case .granted(let fields) = outcome {
  ///   defer { leases.release() }  // once the response's last byte is written
  ///   // run the route, add `fields` to its response
  /// }
  /// ```
  ///
  /// `release()` gives every lease back at once; the first call does, later calls do nothing. Leases nobody
  /// released are released when this object is deallocated, so a request's leases never leak. A gate never
  /// releases them before its caller says so.
  public final class Leases: Sendable {
    /// Each lease, with the name of the policy that granted it, in policy order.
    package let held: [(policy: String, lease: Lease)]

    /// No lease: a request without concurrency policies, or one that was not granted.
    package static let none = Leases([])

    package init(_ held: [(policy: String, lease: Lease)]) {
      self.held = held
    }

    /// Whether the request holds no lease.
    public var isEmpty: Bool { held.isEmpty }

    /// The names of the policies whose leases are held, in policy order.
    public var policies: [String] { held.map(\.policy) }

    /// Gives every lease back, at once. The first call does; later calls do nothing.
    public func release() {
      for (_, lease) in held { lease.release() }
    }
  }

  /// ``decide(key:)``, and the leases a granted request holds (``Leases``): release them when its response is
  /// done (for a streamed body, once its last byte is written, its writer fails or the client goes away; at once
  /// when the route throws). A refused request holds none. ``decide(key:)`` is this call with its leases
  /// released at once: fine for a gate without concurrency policies.
  public func decideHolding(key: String) async throws -> (outcome: Outcome, leases: Leases) {
    let decided = try await decideRequest(key: key)
    return (decided.outcome, decided.leases)
  }
}
