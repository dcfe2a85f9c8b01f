#if Postgres
  public import Logging
  public import PostgresNIO
  import RateLimit

  /// The rules of `KeyedRateLimiter`, kept in PostgreSQL: every process that uses the same database and `name`
  /// shares one limit per key.
  ///
  /// A server runs as several instances; with a `KeyedRateLimiter` in each, three instances let three times the
  /// limit through, and one that restarts forgets every key. This limiter keeps each key's state in one row that
  /// every instance shares, and decides in the database, at most one statement (one round trip) a decision,
  /// shared by the decisions that arrive while one is in flight:
  ///
  /// ```swift
  /// // Three instances of one server, one limit: 100 requests
  /// // per minute per client, bursts of 20.
  /// let client = PostgresClient(configuration: config)
  /// // … and run it: `await client.run()`
  /// let perClient = PostgresRateLimiter(
  ///   client: client, name: "api", limit: 100, per: .seconds(60),
  ///   burst: 20,
  ///   whenUnavailable: .fallback(
  ///     KeyedRateLimiter(limit: 34, per: .seconds(60))))
  /// try await perClient.prepare()
  /// if try await perClient.tryAcquire(for: clientID) {
  ///   try await handle(request)
  /// } else {
  ///   reject(retryAfter: try await perClient.retryAfter(for: clientID))
  /// }
  /// ```
  ///
  /// - **The same rules.** For one `name`, each key behaves as one `RateLimiter` with the same parameters,
  ///   whichever process asks: with `time: .clock(c)`, the same answers as a `KeyedRateLimiter` on `c`, to the
  ///   nanosecond. Only `cancel()` of a token bucket's booking differs (see ``Reservation/cancel()``).
  /// - **Atomic.** Decisions on one key are serialized by a lock per key (transaction-scoped, advisory), and each
  ///   reads the key's state and "now" only once it holds it, never behind the key's latest "now": no key is ever
  ///   granted more than its rule allows.
  /// - **The database's clock** by default (``Time/database``): instances with skewed clocks still agree.
  /// - **When the database cannot answer** within `timeout`, ``WhenUnavailable`` decides. A decision waiting for
  ///   its limiter's first preparation waits up to `timeout` for it, then `timeout` for its own statement.
  /// - **Coalescing.** A decision that finds none of this limiter's statements in flight is sent at once;
  ///   those that arrive meanwhile go together in the next statement, in arrival order, each with its own
  ///   timeout and policy. Their answers are those of the same decisions made one by one in that order.
  /// - **A refused key answers locally** (`localRefusals`): once the database says a key cannot grant one permit
  ///   before an instant X, this process refuses it until X without a round trip, or until any process's `reset`,
  ///   `refund` or `update` of it (within one round trip; none is kept while this process cannot listen).
  /// - **Storage follows the active keys**: a key at rest holds no row once swept, and decisions sweep on their
  ///   own, at most once per `window` (at least once a minute), a bounded batch at a time.
  ///
  /// Times are whole nanoseconds; a `window`, `maxDelay` or instant beyond the 292-year horizon of `Int64`
  /// saturates there, as for `RateLimiter`.
  public final class PostgresRateLimiter: Sendable {
    /// Keys (and names) longer than this many UTF-8 bytes are refused.
    public static let maximumKeyLength = 1_024

    /// The namespace of the keys: limiters with the same `name` share their keys' state.
    public let name: String
    /// N: at most this many permits per ``window`` (sliding window), or the refill rate per ``window`` (bucket).
    public var limit: Int { door.limit }
    /// T. `.zero`: no limiting (any request up to the capacity is granted at once, unless its key is blocked:
    /// each decision reads the key's block, one round trip that writes nothing).
    public var window: Duration { door.window }
    /// B, the bucket's size; `nil` for a strict sliding window.
    public var burst: Int? { door.burst }
    /// Where "now" comes from.
    public let time: Time
    /// What a decision does when the database cannot answer within ``timeout``.
    public let whenUnavailable: WhenUnavailable
    /// The longest a decision waits for its statement (a first preparation may take up to as long again).
    public let timeout: Duration

    /// The parameters, the checks of every request, and `acquire`: the core's, as for `KeyedRateLimiter`.
    let door: PermitFrontDoor
    /// The database behind the door: the statements, their coalescing, the outage back-off, local refusals, the
    /// clock's steps and this process's waiters.
    let store: PostgresPermitStore

    /// Statements this limiter has sent for decisions (one per lone decision, one per batch): what the
    /// benchmarks count beside the decisions made.
    @_spi(RateLimitIntegration) public var statementsSent: Int { store.coalescer.counts.statements }

    var capacity: Int { door.capacity }
    var isUnlimited: Bool { door.isUnlimited }

    /// Creates a strict sliding window: never more than `limit` permits for a key in any window of length
    /// `window`.
    ///
    /// - Parameters:
    ///   - client: A running `PostgresClient` (PostgresNIO). Its connections' current schema holds the tables.
    ///   - name: The limit's name; limiters of one name share their keys. At most 1,024 UTF-8 bytes (else traps).
    ///   - limit: N, at least 1 (anything else traps, naming the value).
    ///   - window: T; must not be negative. `.zero` means no limiting.
    ///   - time: Where "now" comes from: the database's clock by default.
    ///   - whenUnavailable: What a decision does when the database cannot answer; throws by default.
    ///   - timeout: The longest a decision waits for its statement (as long again for a first preparation);
    ///     250 ms by default.
    ///   - localRefusals: Whether a key the database refused is refused here, without a round trip, until it can
    ///     grant one permit again (the default); see the article for the one case where that can differ from
    ///     asking the database.
    ///   - logger: Where the limiter logs: an outage's start at `warning` and its end at `info` (once each), a
    ///     stored rule other than this limiter's at `warning` (once); at `debug`, a `prepare()` that created or
    ///     migrated the schema, revocations given up. By default the task-local `Logger.current` at init.
    public convenience init(
      client: PostgresClient, name: String, limit: Int, per window: Duration, time: Time = .database,
      whenUnavailable: WhenUnavailable = .throwError, timeout: Duration = .milliseconds(250),
      localRefusals: Bool = true, logger: Logger? = nil
    ) {
      self.init(
        client: client, name: name, limit: limit, window: window, burst: nil, time: time,
        whenUnavailable: whenUnavailable, timeout: timeout, localRefusals: localRefusals, logger: logger)
    }

    /// Creates a token bucket: one permit every `window / limit` on average, up to `burst` at once; starts full.
    ///
    /// - Parameters:
    ///   - client: A running `PostgresClient` (PostgresNIO).
    ///   - name: The limit's name; limiters of one name share their keys. At most 1,024 UTF-8 bytes.
    ///   - limit: N, permits refilled per `window`; at least 1.
    ///   - window: T; must not be negative. `.zero` means no limiting (up to `burst` at once).
    ///   - burst: B, the bucket's size and the most one request can take; at least 1.
    ///   - time: Where "now" comes from: the database's clock by default.
    ///   - whenUnavailable: What a decision does when the database cannot answer; throws by default.
    ///   - timeout: The longest a decision waits for its statement (as long again for a first preparation);
    ///     250 ms by default.
    ///   - localRefusals: Whether a key the database refused is refused here, without a round trip, until it can
    ///     grant one permit again (the default); see the article for the one case where that can differ from
    ///     asking the database.
    ///   - logger: Where the limiter logs: an outage's start at `warning` and its end at `info` (once each), a
    ///     stored rule other than this limiter's at `warning` (once); at `debug`, a `prepare()` that created or
    ///     migrated the schema, revocations given up. By default the task-local `Logger.current` at init.
    public convenience init(
      client: PostgresClient, name: String, limit: Int, per window: Duration, burst: Int, time: Time = .database,
      whenUnavailable: WhenUnavailable = .throwError, timeout: Duration = .milliseconds(250),
      localRefusals: Bool = true, logger: Logger? = nil
    ) {
      self.init(
        client: client, name: name, limit: limit, window: window, burst: burst, time: time,
        whenUnavailable: whenUnavailable, timeout: timeout, localRefusals: localRefusals, logger: logger)
    }

    /// Both rules' limiter (`burst` `nil`: a sliding window).
    private init(
      client: PostgresClient, name: String, limit: Int, window: Duration, burst: Int?, time: Time,
      whenUnavailable: WhenUnavailable, timeout: Duration, localRefusals: Bool, logger: Logger?
    ) {
      (self.name, self.time, self.whenUnavailable, self.timeout) = (name, time, whenUnavailable, timeout)
      door = Self.checked(name, limit, window, burst, timeout)
      store = PostgresPermitStore(
        client: client, name: name, door: door, clock: time.clock, timeout: timeout, localRefusals: localRefusals,
        fallback: whenUnavailable.limiter, logger: logger ?? Logger.current)
    }

    private static func checked(
      _ name: String, _ limit: Int, _ window: Duration, _ burst: Int?, _ timeout: Duration
    ) -> PermitFrontDoor {
      let door = PermitFrontDoor(limit: limit, window: window, burst: burst, of: "PostgresRateLimiter")
      requireNonNegative(timeout, "timeout", of: "PostgresRateLimiter")
      if name.utf8.count > maximumKeyLength {
        fatalError("PostgresRateLimiter: name must be at most 1,024 UTF-8 bytes, got name of \(name.utf8.count)")
      }
      return door
    }

    /// Creates the table and functions it needs if they are missing (or migrates older ones), in the connection's
    /// current schema, under names starting `ratelimit_`. Idempotent and safe from many processes at once (one
    /// transaction under an advisory lock); needs no other setup. Not subject to the policy. If the name's rule
    /// is stored already with other parameters, this limiter adopts the stored rule (and reports it), with a
    /// warning naming both; ``update(limit:per:)`` is the one way to change a stored rule.
    ///
    /// It creates `ratelimit_schema` and `ratelimit_release` (the version), `ratelimit_keys` (UNLOGGED: one row
    /// per key in use) with an index, `ratelimit_names`, `ratelimit_revoked`, the sequence
    /// `ratelimit_booking_ids`, and functions whose names start `ratelimit_` (a decision is one call of
    /// `ratelimit_decide_v4`, several coalesced decisions one of `ratelimit_decide_many_v7`).
    /// It needs `CREATE` on the schema the first time, then `SELECT`, `INSERT`, `UPDATE` and `DELETE` on the table
    /// and `EXECUTE` on the functions.
    ///
    /// - Throws: ``PostgresRateLimiterError/unavailable(underlying:)`` if the database does not answer within
    ///   10 seconds (or ``timeout``, if longer); PostgresNIO's own error if a statement fails (a missing
    ///   privilege).
    public func prepare() async throws {
      try await store.throwingUnavailable { try await store.prepare(within: max(timeout, .seconds(10))) }
    }

    /// Takes `permits` for `key` now if they can be granted now; never waits, never books for later.
    ///
    /// - Returns: Whether the permits were granted. `false` while anyone waits for a later booking of `key`, and
    ///   for more than the capacity. When the database cannot answer: as ``whenUnavailable`` says.
    /// - Throws: ``PostgresRateLimiterError/invalidKey(reason:)``; ``PostgresRateLimiterError/unavailable(underlying:)``
    ///   with ``WhenUnavailable/throwError``.
    /// - Complexity: At most one round trip: sent at once when none of this limiter's statements is in flight,
    ///   else in the next statement with every decision that arrived meanwhile (see ``PostgresRateLimiter``).
    public func tryAcquire(_ permits: Int = 1, for key: String) async throws -> Bool {
      try await perform(.tryAcquire, permits, for: key) { request, route in
        switch route {
        case .beyondCapacity, .refusedHere: false
        case .unlimited: try await store.blockInForce(request.key.bytes) == nil
        case .database: try await ask(request).booked
        }
      } whenUnavailable: { error in
        try answer(error, allow: true, deny: false) { $0.tryAcquire(permits, for: key) }
      }
    }

    /// Books `permits` for `key` at the earliest instant they can be granted, behind every earlier booking of the
    /// key in any process.
    ///
    /// - Parameters:
    ///   - permits: At least 1.
    ///   - key: Any string of up to 1,024 UTF-8 bytes.
    ///   - maxDelay: If the booking would be later than `now + maxDelay`, nothing is booked. `nil`: no bound.
    /// - Returns: The booking, or `nil` (nothing booked) for more than the capacity or beyond `maxDelay`.
    /// - Complexity: At most one round trip: sent at once when none of this limiter's statements is in flight,
    ///   else in the next statement with every decision that arrived meanwhile (see ``PostgresRateLimiter``).
    public func reserve(_ permits: Int = 1, for key: String, within maxDelay: Duration? = nil) async throws
      -> Reservation?
    {
      door.check(permits, within: maxDelay)
      switch try await request(permits, for: key, within: maxDelay) {
      case .booked(let reservation): return reservation
      case .exceedsCapacity, .exceedsMaxDelay, .denied: return nil
      case .fallback(let local):
        return local.reserve(permits, for: key, within: maxDelay).map { Reservation($0, key: key) }
      }
    }

    /// Waits for its turn across the fleet, then returns with the permits granted.
    ///
    /// Books as ``reserve(_:for:within:)`` does, then waits in this process for the booking's `delay`: on `c`'s
    /// timer with `.clock(c)` (a test awaits `ManualClock.waitUntilScheduled(atLeast:)`, then advances), on a
    /// `ContinuousClock` with `.database`. If the task is cancelled while it waits, the booking is given back in
    /// the database (as ``Reservation/cancel()``) before it throws `CancellationError`.
    ///
    /// - Throws: `CancellationError` (already cancelled: nothing booked);
    ///   ``PostgresRateLimiterError/exceedsCapacity(requested:capacity:)`` or
    ///   ``PostgresRateLimiterError/exceedsMaxDelay(delay:maxDelay:)`` at once, nothing booked;
    ///   ``PostgresRateLimiterError/unavailable(underlying:)`` with `.throwError` or `.deny`.
    public func acquire(_ permits: Int = 1, for key: String, within maxDelay: Duration? = nil) async throws {
      try await door.acquire(permits, for: key, within: maxDelay, from: AcquireStore(limiter: self))
    }

    /// How long a request for `permits` made now for `key` would wait: the `delay` ``reserve(_:for:within:)``
    /// would give, without booking (`.zero`: granted now).
    ///
    /// - Returns: `nil` if it never can be (more than the capacity); when the database cannot answer, as
    ///   ``whenUnavailable`` says (`.allow`: `.zero`; `.deny`: `nil`).
    public func retryAfter(_ permits: Int = 1, for key: String) async throws -> Duration? {
      try await perform(.retryAfter, permits, for: key) { request, route in
        switch route {
        case .beyondCapacity: return nil
        case .unlimited:
          return try await store.blockInForce(request.key.bytes).map { .nanoseconds($0.end &- $0.now) } ?? .zero
        case .refusedHere(let refusal): return max(.zero, refusal.until - request.now)
        case .database:
          let decision = try await ask(request)
          return .nanoseconds(max(0, decision.time &- decision.now))
        }
      } whenUnavailable: { error in
        try answer(error, allow: .zero, deny: nil) { $0.retryAfter(permits, for: key) }
      }
    }

    /// The keys of this name whose state differs from a fresh limiter's, now (exact at its instant); a blocked key
    /// counts until its block ends.
    ///
    /// - Throws: ``PostgresRateLimiterError/unavailable(underlying:)`` when the database cannot answer.
    public func count() async throws -> Int {
      try await store.throwingUnavailable { try await store.count() }
    }

    /// Deletes every row of this name that only a key at rest holds, in bounded batches (rows a decision holds at
    /// that moment are skipped). The limiter also does this on its own, a batch at a time.
    ///
    /// - Throws: ``PostgresRateLimiterError/unavailable(underlying:)`` when the database cannot answer.
    public func sweep() async throws {
      try await store.throwingUnavailable { try await store.sweep() }
    }

    /// What `reserve` and `acquire` share: the booking, or why there is none.
    enum Outcome {
      case booked(Reservation)
      case exceedsCapacity
      case exceedsMaxDelay(Duration)
      /// The database cannot answer and the policy refuses: `acquire` throws this.
      case denied(any Error)
      /// The database cannot answer: this local limiter decides.
      case fallback(KeyedRateLimiter<String>)
    }

    /// `reserve` and `acquire` through the door (their own checks made already, ``PermitFrontDoor``).
    func request(_ permits: Int, for key: String, within maxDelay: Duration?) async throws -> Outcome {
      try await perform(.reserve(within: maxDelay), permits, for: key) { request, route in
        switch route {
        case .beyondCapacity: return .exceedsCapacity
        case .unlimited: return try await unlimitedBooking(request, within: maxDelay)
        case .refusedHere, .database:  // a booking is never refused here (the route says `.database`)
          let decision = try await ask(request)
          let delay = Duration.nanoseconds(decision.time &- decision.now)
          guard decision.booked else { return .exceedsMaxDelay(delay) }
          // A booking moves the key's next free instant: a local refusal no longer says when.
          store.localRefusals?.forget(request.key.bytes)
          return .booked(
            Reservation(
              permits: permits, key: key, time: store.onClock(decision.time), delay: delay,
              canceller: .database(self, id: decision.id, key: request.key.bytes)))
        }
      } whenUnavailable: { error in
        try answer(
          error, allow: .booked(Reservation(permits: permits, key: key, at: store.localNow())),
          deny: .denied(error.error), fallback: Outcome.fallback)
      }
    }
  }
#endif
