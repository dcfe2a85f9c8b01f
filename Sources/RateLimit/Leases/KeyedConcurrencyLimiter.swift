/// At most `limit` permits held at once for each key, kept separately for every key; a key with nothing held and
/// nobody waiting costs nothing.
///
/// ```swift
/// // Two exports per tenant at a time; the others wait their turn.
/// let exports = KeyedConcurrencyLimiter<String>(limit: 2)
/// let file = try await exports.withLease(for: tenant) {
///   try await export(tenant)
/// }
/// ```
///
/// The rules, per key (see ``ConcurrencyLimiter`` for a timeline):
/// - **Exact.** At no instant do a key's leases hold more than `limit` permits.
/// - **First come, first served.** `acquire` waits in one line per key, in arrival order; a waiter is served as
///   soon as its permits fit and nobody waits ahead of it (a large waiter at the head holds back smaller ones).
///   ``tryAcquire(_:for:)`` never jumps the line.
/// - **Giving up.** A cancelled waiter throws `CancellationError`, one not served within `maxWait` (on the
///   limiter's clock) throws ``RateLimiterError/waitedTooLong(maxWait:)``; either takes nothing, and those behind
///   it move up at once. Deadlines are exclusive: a waiter is never served at its own deadline.
/// - **Release.** ``Lease/release()`` gives the permits back at once, and serves the waiters they make fit before
///   it returns.
/// - **Cost.** `tryAcquire` and `release` on a warm key: one lock each, no clock reading, no allocation but the
///   lease.
public final class KeyedConcurrencyLimiter<Key: Hashable & Sendable>: Sendable {
  let lines: LeaseLines<Key>

  /// - Parameters:
  ///   - limit: The most permits a key's leases hold at once; at least 1 (a precondition naming the value).
  ///   - clock: Measures `maxWait`.
  public init(limit: Int, clock: some RateLimitClock = .dispatch) {
    lines = LeaseLines(limit: limit, clock: clock, typeName: "KeyedConcurrencyLimiter")
  }

  /// The limit now (``update(limit:)`` changes it).
  public var limit: Int { lines.currentLimit }

  /// The permits `key`'s leases hold now.
  @_specialize(where Key == String)
  @_specialize(where Key == Int)
  public func inUse(for key: Key) -> Int { lines.inUse(for: key) }

  /// Keys holding a lease or waited for, now.
  public var count: Int { lines.count }

  /// A lease now if `permits` are free for `key` and nobody waits for it; `nil` otherwise (more permits than the
  /// limit included). Never waits.
  ///
  /// - Parameters:
  ///   - permits: At least 1 (a precondition naming the value).
  ///   - key: The key whose leases are counted.
  @_specialize(where Key == String)
  @_specialize(where Key == Int)
  public func tryAcquire(_ permits: Int = 1, for key: Key) -> Lease? {
    lines.tryAcquire(permits, for: key)
  }

  /// Waits for its turn in `key`'s line, then returns the lease.
  ///
  /// Checks, in order: `permits` at least 1 and `maxWait` not negative (preconditions naming the value); more
  /// permits than `limit` throw ``RateLimiterError/exceedsCapacity(requested:capacity:)``; an already-cancelled
  /// task throws `CancellationError`; then the line. `maxWait: .zero` is `tryAcquire` that throws.
  ///
  /// - Throws: ``RateLimiterError/exceedsCapacity(requested:capacity:)`` (at once, or when an ``update(limit:)``
  ///   lowers the limit below `permits` while it waits), ``RateLimiterError/waitedTooLong(maxWait:)``,
  ///   `CancellationError`. Each takes nothing.
  public func acquire(_ permits: Int = 1, for key: Key, within maxWait: Duration? = nil) async throws -> Lease {
    try await lines.acquire(permits, for: key, within: maxWait)
  }

  /// Runs `body` holding a lease of `permits` for `key`; releases it when `body` returns, throws or is cancelled,
  /// and rethrows `body`'s error. Waits as ``acquire(_:for:within:)`` does.
  public func withLease<T>(
    isolation: isolated (any Actor)? = #isolation, _ permits: Int = 1, for key: Key,
    within maxWait: Duration? = nil, _ body: () async throws -> T
  ) async throws -> T {
    let lease = try await acquire(permits, for: key, within: maxWait)
    defer { lease.release() }
    return try await body()
  }

  /// Decides exactly as ``tryAcquire(_:for:)`` and reports the key after it: `remaining` is `limit − inUse`
  /// (0 if below, or while anyone waits for the key).
  @_specialize(where Key == String)
  @_specialize(where Key == Int)
  public func decide(_ permits: Int = 1, for key: Key) -> LeaseDecision {
    lines.decide(permits, for: key)
  }

  /// A new limit from the next decision on. Leases held stay held (`inUse` may exceed a lowered limit until
  /// enough are released); waiters are served as the new limit allows, at once if it rose, and a waiter for more
  /// permits than the new limit throws ``RateLimiterError/exceedsCapacity(requested:capacity:)`` at once.
  ///
  /// - Parameter limit: At least 1 (a precondition naming the value).
  public func update(limit: Int) {
    lines.update(limit: limit)
  }
}
