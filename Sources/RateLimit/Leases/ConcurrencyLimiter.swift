/// At most `limit` permits held at once. Callers take permits as a lease and give them back when their work is
/// done; those that wait are served first come, first served.
///
/// ```
/// limit 2                       inUse  line
/// a = tryAcquire()              1      —
/// b = acquire(2)   (waits)      1      [b]
/// tryAcquire()     → nil        1      [b]    never jumps the line
/// a.release()                   2      —      b served inside release()
/// ```
///
/// ```swift
/// let gpu = ConcurrencyLimiter(limit: 8)
/// let image = try await gpu.withLease { try await render(scene) }
/// ```
///
/// It keeps the lines of a ``KeyedConcurrencyLimiter`` for one key, and follows its rules.
public final class ConcurrencyLimiter: Sendable {
  /// The one key.
  private enum Only: Hashable, Sendable { case key }
  private let lines: LeaseLines<Only>

  /// - Parameters:
  ///   - limit: The most permits held at once; at least 1 (a precondition naming the value).
  ///   - clock: Measures `maxWait`.
  public init(limit: Int, clock: some RateLimitClock = .dispatch) {
    lines = LeaseLines(limit: limit, clock: clock, typeName: "ConcurrencyLimiter")
  }

  /// The limit now.
  public var limit: Int { lines.currentLimit }

  /// Permits held by leases now.
  public var inUse: Int { lines.inUse(for: .key) }

  /// A lease now if `permits` are free and nobody waits; `nil` otherwise. Never waits.
  public func tryAcquire(_ permits: Int = 1) -> Lease? { lines.tryAcquire(permits, for: .key) }

  /// Waits for its turn, then returns the lease (``KeyedConcurrencyLimiter/acquire(_:for:within:)``'s checks and
  /// errors).
  public func acquire(_ permits: Int = 1, within maxWait: Duration? = nil) async throws -> Lease {
    try await lines.acquire(permits, for: .key, within: maxWait)
  }

  /// Runs `body` holding a lease of `permits`; releases it when `body` returns or throws.
  public func withLease<T>(
    isolation: isolated (any Actor)? = #isolation, _ permits: Int = 1, within maxWait: Duration? = nil,
    _ body: () async throws -> T
  ) async throws -> T {
    let lease = try await acquire(permits, within: maxWait)
    defer { lease.release() }
    return try await body()
  }

  /// `tryAcquire`, and the key after it.
  public func decide(_ permits: Int = 1) -> LeaseDecision { lines.decide(permits, for: .key) }

  /// A new limit from now on; leases held stay held (``KeyedConcurrencyLimiter/update(limit:)``).
  public func update(limit: Int) { lines.update(limit: limit) }
}
