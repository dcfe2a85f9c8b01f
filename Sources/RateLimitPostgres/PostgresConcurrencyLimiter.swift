#if Postgres
  public import Logging
  public import PostgresNIO
  public import RateLimit

  /// `KeyedConcurrencyLimiter`'s rules kept in PostgreSQL: one limit per key across every process of a fleet.
  ///
  /// ```swift
  /// // At most 8 GPU jobs at once across every worker process; a worker
  /// // that dies gives its slots back after the lease timeout.
  /// let gpu = PostgresConcurrencyLimiter(
  ///   client: client, name: "gpu", limit: 8, leaseTimeout: .seconds(20))
  /// try await gpu.withLease(for: "pool") { try await runJob(job) }
  /// ```
  ///
  /// - **Exact.** A key's leases never hold more than the name's limit as the database sees them, across every
  ///   process and connection: each decision is one statement under the key's lock.
  /// - **First come, first served.** A waiting `acquire` holds a place in the database; places are served in the
  ///   order they reached it, whatever their process, and ``tryAcquire(_:for:)`` never jumps the line.
  /// - **The holder is gone, the lease is gone.** Every lease expires on the database's clock `leaseTimeout`
  ///   after it was granted or last renewed; while this process holds leases of the name it renews them all in
  ///   one statement every `leaseTimeout / 4`, and does no background work when it holds none. A killed holder's
  ///   permits are free between `2/3 × leaseTimeout` and `leaseTimeout` after the kill. A renewal that finds a
  ///   lease expired logs an error naming the name and key; that lease's `release()` then does nothing.
  /// - **Release.** `Lease.release()` stops this process counting the permits at once and sends one statement
  ///   (or rides on this limiter's next decision), never after a later statement of this limiter; one the
  ///   database cannot take is tried again until the lease would have expired, or until the client shuts down.
  ///   A process about to exit sends the releases still queued with `try await inUse(for:)` (any key): it
  ///   sends them first; otherwise a lease released in its last round trip is free only after `leaseTimeout`.
  /// - **Waiting across the fleet.** A waiter is woken (LISTEN/NOTIFY, the connection `PostgresRateLimiter`
  ///   listens on) within a round trip of a release or ``update(limit:)`` by any process, and checks its place
  ///   at least every `leaseTimeout / 3` (which also renews it). Listening holds one connection of the client's
  ///   pool, only while the pool lends another within a quarter of the shortest `timeout` (at most a second):
  ///   on a pool of one connection (or one all busy) it gives its connection back, logs a warning once, and
  ///   tries again later, never holding up a decision past its `timeout`; meanwhile this process's own
  ///   releases wake its waiters, and other processes' releases reach them at their period.
  /// - **A caller that gave up holds nothing.** A decision whose `timeout` passed after its statement was sent
  ///   may still run; its row carries a token this process chose, revoked in the background as soon as the
  ///   database answers, whichever runs first, so a late grant or place in line does not stand until
  ///   `leaseTimeout`.
  /// - **The database keeps the keys in use.** A key's expired rows (a killed holder's leases, a waiter's place,
  ///   a revoked statement's) are deleted by the next statement on the key, and a decision of this limiter is
  ///   followed, at most once per `leaseTimeout`, by a sweep of the name's expired rows in the background, so
  ///   keys that nobody uses again leave nothing behind.
  /// - **Schema.** The same as `PostgresRateLimiter`'s, prepared by the first call (4.4 adds
  ///   `ratelimit_lease_names`, `ratelimit_leases` and five functions `ratelimit_lease_…`); concurrency limits'
  ///   names are their own. Leases are kept in an UNLOGGED table, as the rate limits' keys: a server crash frees
  ///   them.
  ///
  /// Keys are compared by their UTF-8 bytes; a ``WhenUnavailable/fallback(_:)`` limiter compares Swift strings.
  public final class PostgresConcurrencyLimiter: SharedConcurrencyLimiter {
    /// The namespace of the keys: limiters with the same `name` share their keys' leases.
    public let name: String
    /// The limit as this process knows it now (another process's ``update(limit:)`` is adopted at this
    /// limiter's next decision).
    public var limit: Int { store.knownLimit.withLock { $0 } }
    /// How long a lease (or a waiter's place) outlives its last renewal on the database's clock.
    public let leaseTimeout: Duration
    /// What a decision does when the database cannot answer within ``timeout``.
    public let whenUnavailable: WhenUnavailable
    /// The longest a decision waits for its statement.
    public let timeout: Duration

    let store: LeaseStore

    /// - Parameters:
    ///   - client: A running `PostgresClient` (PostgresNIO).
    ///   - name: The limit's name; at most 1,024 UTF-8 bytes (else traps).
    ///   - limit: The most permits a key's leases hold at once; at least 1 (else traps, naming the value). Stored
    ///     for the name unless one is stored already: the stored one decides (``update(limit:)`` changes it).
    ///   - leaseTimeout: At least 1 s (else traps): how long a lease outlives its holder's last renewal.
    ///   - whenUnavailable: What a decision does when the database cannot answer; throws by default.
    ///   - timeout: The longest a decision waits for its statement; not negative (else traps). 250 ms by default.
    ///   - logger: Where the limiter logs (a lease found expired at `error`); by default the task-local
    ///     `Logger.current` at init.
    public init(
      client: PostgresClient, name: String, limit: Int, leaseTimeout: Duration = .seconds(30),
      whenUnavailable: WhenUnavailable = .throwError, timeout: Duration = .milliseconds(250),
      logger: Logger? = nil
    ) {
      requirePositive(limit, "limit", of: "PostgresConcurrencyLimiter")
      requireNonNegative(timeout, "timeout", of: "PostgresConcurrencyLimiter")
      if leaseTimeout < .seconds(1) {
        fatalError(
          "PostgresConcurrencyLimiter: leaseTimeout must be at least 1 second, got leaseTimeout: \(leaseTimeout)")
      }
      if name.utf8.count > PostgresRateLimiter.maximumKeyLength {
        fatalError(
          "PostgresConcurrencyLimiter: name must be at most 1,024 UTF-8 bytes, got name of \(name.utf8.count)")
      }
      (self.name, self.leaseTimeout, self.whenUnavailable, self.timeout) =
        (name, leaseTimeout, whenUnavailable, timeout)
      store = LeaseStore(
        client: client, name: name, limit: limit, leaseTimeout: leaseTimeout, timeout: timeout,
        logger: logger ?? Logger.current)
    }

    /// Creates the tables and functions if they are missing (as `PostgresRateLimiter.prepare()`), and stores this
    /// limiter's limit for its name unless one is stored (then adopts the stored one). Every other call prepares
    /// first if this has not succeeded.
    ///
    /// - Throws: ``PostgresRateLimiterError/unavailable(underlying:)`` if the database does not answer within
    ///   10 seconds (or ``timeout``, if longer).
    public func prepare() async throws {
      try await store.throwingUnavailable { try await store.prepare(within: max(timeout, .seconds(10))) }
    }

    /// A lease now if `permits` are free for `key` and nobody waits for it; `nil` otherwise (more permits than the
    /// stored limit included). Never waits. One round trip.
    ///
    /// - Throws: ``PostgresRateLimiterError/invalidKey(reason:)``; ``PostgresRateLimiterError/unavailable(underlying:)``
    ///   with ``WhenUnavailable/throwError``.
    public func tryAcquire(_ permits: Int = 1, for key: String) async throws -> Lease? {
      try await decide(permits, for: key).lease
    }

    /// Decides exactly as ``tryAcquire(_:for:)`` and reports the key after it: `remaining` is `limit − inUse`
    /// (0 if below, or while anyone waits for the key), `limit` the stored one that decided.
    public func decide(_ permits: Int = 1, for key: String) async throws -> LeaseDecision {
      requirePositive(permits, "permits", of: "PostgresConcurrencyLimiter")
      return try await perform(for: key) { checked in
        let row = try await store.acquire(permits, key: checked.bytes, wait: false)
        let remaining = row.waiting ? 0 : max(0, Int(row.limit - row.held))
        let lease = row.state == .granted ? row.id.map { store.lease(permits, id: $0) } : nil
        return LeaseDecision(lease: lease, limit: Int(row.limit), remaining: remaining)
      } whenUnavailable: { error in
        switch whenUnavailable {
        case .throwError: throw error.error
        case .allow:
          return LeaseDecision(lease: Lease(permits: permits) {}, limit: limit, remaining: limit, isFallback: true)
        case .deny:
          return LeaseDecision(lease: nil, limit: limit, remaining: 0, isFallback: true, isUnavailable: true)
        case .fallback(let local):
          let decision = local.decide(permits, for: key)
          return LeaseDecision(
            lease: decision.lease, limit: decision.limit, remaining: decision.remaining, isFallback: true)
        }
      }
    }

    /// Waits for its turn in `key`'s line across the fleet, then returns the lease.
    ///
    /// Checks, in order: `permits` at least 1 and `maxWait` not negative (preconditions naming the value); more
    /// permits than the stored limit throw ``PostgresRateLimiterError/exceedsCapacity(requested:capacity:)``; an
    /// already-cancelled task throws `CancellationError`; then the line. `maxWait` is measured on
    /// `ContinuousClock`; `.zero` is ``tryAcquire(_:for:)`` that throws.
    ///
    /// - Throws: ``PostgresRateLimiterError/exceedsCapacity(requested:capacity:)``,
    ///   ``PostgresRateLimiterError/invalidKey(reason:)``, `RateLimiterError.waitedTooLong(maxWait:)`,
    ///   `CancellationError` (each takes nothing); ``PostgresRateLimiterError/unavailable(underlying:)`` with
    ///   `.throwError` or `.deny`.
    /// - Complexity: One round trip when served at once; then one per wake-up or check period.
    public func acquire(_ permits: Int = 1, for key: String, within maxWait: Duration? = nil) async throws -> Lease {
      requirePositive(permits, "permits", of: "PostgresConcurrencyLimiter")
      if let maxWait { requireNonNegative(maxWait, "maxWait", of: "PostgresConcurrencyLimiter") }
      let started = ContinuousClock.now
      return try await perform(for: key) { checked in
        // Capacity first (as the database judges it, when this process's limit says it may be exceeded), then an
        // already-cancelled task.
        if permits <= limit { try Task.checkCancellation() }
        return try await LeaseWaiting(store: store, permits: permits, key: checked.string, keyBytes: checked.bytes).run(
          started: started, maxWait: maxWait)
      } whenUnavailable: { error in
        switch whenUnavailable {
        case .throwError, .deny: throw error.error
        case .allow: return Lease(permits: permits) {}
        case .fallback(let local):
          let left = maxWait.map { max(.zero, $0 - (ContinuousClock.now - started)) }
          do {
            return try await local.acquire(permits, for: key, within: left)
          } catch RateLimiterError.waitedTooLong {
            throw RateLimiterError.waitedTooLong(maxWait: maxWait ?? .zero)
          } catch RateLimiterError.exceedsCapacity(let requested, let capacity) {
            throw PostgresRateLimiterError.exceedsCapacity(requested: requested, capacity: capacity)
          }
        }
      }
    }

    /// Runs `body` holding a lease of `permits` for `key`; releases it when `body` returns, throws or is cancelled,
    /// and rethrows `body`'s error. Waits as ``acquire(_:for:within:)`` does.
    public func withLease<T>(
      isolation: isolated (any Actor)? = #isolation, _ permits: Int = 1, for key: String,
      within maxWait: Duration? = nil, _ body: () async throws -> T
    ) async throws -> T {
      let lease = try await acquire(permits, for: key, within: maxWait)
      defer { lease.release() }
      return try await body()
    }

    /// The permits `key`'s leases hold now, across the fleet (after this limiter's releases).
    ///
    /// - Throws: ``PostgresRateLimiterError/unavailable(underlying:)`` when the database cannot answer.
    public func inUse(for key: String) async throws -> Int {
      try await perform(for: key) { checked in
        try await store.inUse(key: checked.bytes)
      } whenUnavailable: { error in
        throw error.error
      }
    }

    /// Changes this name's limit for every process of the fleet, at once; leases held stay held. Waiters are
    /// served as the new limit allows, and a waiter for more permits than it throws `exceedsCapacity`.
    ///
    /// - Parameter limit: At least 1 (a precondition naming the value).
    /// - Throws: ``PostgresRateLimiterError/unavailable(underlying:)`` when the database cannot answer.
    public func update(limit: Int) async throws {
      requirePositive(limit, "limit", of: "PostgresConcurrencyLimiter")
      try await store.throwingUnavailable { try await store.update(limit: limit) }
    }

    /// The door of every operation on a key: the key's bytes made once (``DatabaseKey``), then `body`, or
    /// `policy`'s answer when the database cannot answer (as ``PostgresRateLimiter``'s door).
    private func perform<Answer>(
      for key: String, _ body: (DatabaseKey) async throws -> Answer,
      whenUnavailable policy: (PostgresPermitStore.Unavailable) async throws -> Answer
    ) async throws -> Answer {
      let key = try DatabaseKey(key)
      return try await answering {
        try await body(key)
      } whenUnavailable: {
        try await policy($0)
      }
    }
  }
#endif
