#if Postgres
  import Logging
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Darwin)
    import Darwin
  #endif
  import PostgresNIO
  import RateLimit

  /// The round trips: each decision is one statement, bounded by `timeout`.
  extension PostgresRateLimiter {
    /// What `ratelimit_decide` is asked; in the lane (`ratelimit_decide_many_v7`), a give-back too.
    enum Mode: Int32 {
      case tryAcquire = 0
      case reserve = 1
      case retryAfter = 2
      /// Takes booking `bookingID` of `permits` back exactly (`ratelimit_undo_v5`) and reports the key after it.
      case giveBack = 3

      /// Whether a statement carrying it may sweep rows at rest: one that books (a read or a give-back never
      /// does, as 4.1's lone statements never did).
      var sweeps: Bool { self == .tryAcquire || self == .reserve }
    }

    /// One decision's answer: the instant booked for (or that would be), the decision's "now", the id, and the
    /// key after it (remaining permits, the instant it is at rest).
    struct Decision {
      var time: Int64
      var now: Int64
      var id: Int64
      var booked: Bool
      var remaining: Int64 = 0
      var restAt: Int64 = .min
      /// Nanoseconds until one more permit once `remaining` are taken (`RateLimitDecision.effectiveWindow`).
      var effective: Int64 = 0
    }

    /// The database could not answer: the policy decides. `error` is what `.throwError` throws.
    struct Unavailable: Error {
      let error: PostgresRateLimiterError
      /// Whether the statement was handed to the client (it may have reached the database), rather than
      /// answered by the outage back-off without a round trip.
      var wasSent = true
    }

    /// Rows the automatic sweep deletes in one statement, at most.
    static let sweepBatch: Int32 = 1_000

    /// "Now" as each statement is sent: `c.now` with `.clock(c)`, `NULL` (the database's clock) by default. A
    /// sliding window's readings go on the time line of ``clockSteps``: the key's instants then move back with a
    /// clock that steps back, as a `KeyedRateLimiter`'s do (a token bucket's take the step in in the database,
    /// as Go's does). A step noticed here moves this process's waiters back too (``waiters``).
    var nowSent: Int64? {
      guard let clock = time.clock else { return nil }
      let reading = wholeNanoseconds(clock.now, roundingUp: true)
      return clockSteps.withLock { steps in
        let jump = steps.read(reading)
        // This process's waiters move back with the clock, as a `KeyedRateLimiter`'s do.
        if jump > 0 { waiters.clockWentBack(by: jump) }
        return burst == nil ? steps.onTimeLine(reading) : reading
      }
    }

    /// An instant the database answered (on the time line ``nowSent`` sends), on the limiter's clock.
    func onClock(_ instant: Int64) -> Duration {
      guard time.clock != nil, burst == nil else { return .nanoseconds(instant) }
      return .nanoseconds(clockSteps.withLock { $0.onClock(instant) })
    }

    /// "Now" for a grant made without the database: `c.now`, or this machine's wall clock (Unix epoch).
    func localNow() -> Duration {
      if let clock = time.clock { return clock.now }
      var spec = timespec()
      clock_gettime(CLOCK_REALTIME, &spec)
      return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }

    func ask(
      _ mode: Mode, _ permits: Int, key: ByteBuffer, maxDelay: Int64?, remembering: Bool = false
    ) async throws -> Decision {
      try await prepareIfNeeded()
      let sent = localClock.now
      // A booking's id chosen here, above the sequence's range, so that a decision this caller gives up on can
      // be revoked whether or not the database has run it yet.
      let request = DecisionRequest(
        mode: mode, permits: Int64(permits), key: key, maxDelay: maxDelay,
        bookingID: mode == .retryAfter ? nil : Int64.random(in: (1 << 62)...Int64.max))
      let row: DecisionRow
      do {
        row = try await send(request)
      } catch let error as Unavailable where error.wasSent {
        // The statement may run (or have run) without us: its booking is revoked, once the database answers.
        if let bookingID = request.bookingID { revokeLater(bookingID, key: key) }
        throw error
      }
      if remembering, let localRefusals, permits == 1, !row.booked, mode == .tryAcquire {
        localRefusals.refuse(key, answeredAt: row.now, time: row.time, restAt: row.restAt, sent: sent)
      }
      return Decision(
        time: row.time, now: row.now, id: row.id ?? -1, booked: row.booked, remaining: row.remaining,
        restAt: row.restAt, effective: row.effective)
    }

    /// Runs `prepare()`'s statement and checks this limiter's rule and parameters against those stored for its
    /// name, within `limit`.
    func prepare(within deadline: Duration) async throws {
      _ = try await run(PostgresQuery(unsafeSQL: Schema.prepare), as: Int32.self, within: deadline)
      let rule = burst == nil ? "window" : "bucket"
      let burst = self.burst.map(Int64.init)
      let query: PostgresQuery = """
        WITH stored AS (
          INSERT INTO ratelimit_names (name, rule, lim, win, burst) \
          VALUES (\(nameBytes), \(rule), \(Int64(limit)), \(windowNanoseconds), \(burst)) \
          ON CONFLICT (name) DO NOTHING RETURNING rule, lim, win, burst)
        SELECT rule, lim, win, burst FROM stored UNION ALL \
        SELECT rule, lim, win, burst FROM ratelimit_names WHERE name = \(nameBytes) LIMIT 1
        """
      if let (storedRule, storedLimit, storedWindow, storedBurst) = try await runRow(
        query, as: (String, Int64, Int64, Int64?).self),
        storedRule != rule || storedLimit != Int64(self.limit) || storedWindow != windowNanoseconds
          || storedBurst != burst
      {
        fatalError(
          "PostgresRateLimiter: name \"\(name)\" is stored with \(Self.describe(storedRule, storedLimit, storedWindow, storedBurst)); "
            + "this limiter has \(Self.describe(rule, Int64(self.limit), windowNanoseconds, burst)). Limiters that share "
            + "a name must share its rule and parameters: use another name (or delete the name's row from "
            + "ratelimit_names once no instance uses it)")
      }
      isPrepared.withLock { $0 = true }
      logger.debug(
        "rate limit: schema ready (created or migrated to release \(Schema.version) if older)",
        metadata: ["ratelimit.name": "\(name)"])
    }

    static func describe(_ rule: String, _ limit: Int64, _ window: Int64, _ burst: Int64?) -> String {
      let kind = rule == "window" ? "a sliding window" : "a token bucket"
      return "\(kind) of \(limit) per \(Duration.nanoseconds(window))" + (burst.map { ", burst \($0)" } ?? "")
    }

    /// Decisions before `prepare()` has succeeded prepare first, within `timeout`: a limiter made while the
    /// database is down answers by its policy, and prepares itself once the database answers.
    func prepareIfNeeded() async throws {
      if isPrepared.withLock({ $0 }) { return }
      try await prepare(within: timeout)
    }

    /// `SET LOCAL lock_timeout` for a decision: four fifths of `timeout`, so that a key whose lock another
    /// session holds answers 55P03 (and frees its connection) before the caller's deadline.
    var lockTimeout: String {
      let milliseconds = max(1, wholeNanoseconds(timeout, roundingUp: false) / 1_250_000)
      return "\(milliseconds)ms"
    }

    /// Revokes booking `id` (`ratelimit_revoke_v4`) in the background: see ``Revocations``.
    func revokeLater(_ id: Int64, key: ByteBuffer) {
      revocations.add(id, key: key, limiter: self)
    }

    /// The statement that revokes booking `id` of `key`, its wait for the key's lock bounded as a decision's.
    func revokeStatement(_ id: Int64, key: ByteBuffer) -> PostgresQuery {
      let burst = self.burst.map(Int64.init)
      return """
        SELECT 1 FROM ratelimit_revoke_v4(\(nameBytes), \(key), \(Int64(limit)), \(windowNanoseconds), \(burst), \
        \(id), \(lockTimeout))
        """
    }

    /// How many rows of keys at rest this decision sweeps first: a batch at most once per `window` (at least once
    /// a minute), on `localClock`; 0 otherwise.
    func sweepIfDue() -> Int32 {
      let now = localClock.now
      let interval = min(window, .seconds(60))
      return nextSweep.withLock { next in
        guard now >= next else { return 0 }
        next = now + interval
        return Self.sweepBatch
      }
    }

    func cancel(_ id: Int64, for key: String) async throws {
      let burst = self.burst.map(Int64.init)
      let query: PostgresQuery = """
        SELECT 1 FROM ratelimit_cancel_v4(\(nameBytes), \(ByteBuffer(string: key)), \(Int64(limit)), \
        \(windowNanoseconds), \(burst), \(id), \(nowSent), false)
        """
      _ = try await throwingUnavailable { try await run(query, as: Int32.self) }
      localRefusals?.forget(ByteBuffer(string: key))
    }

    /// For what no policy covers (`count`, `sweep`, `cancel`): "unavailable" is thrown as
    /// ``PostgresRateLimiterError/unavailable(underlying:)``.
    func throwingUnavailable<Value>(_ body: () async throws -> Value) async throws -> Value {
      do {
        return try await body()
      } catch let error as Unavailable {
        throw error.error
      }
    }

    /// Sends `query` within `timeout` and decodes its first row; an error that means "unavailable" becomes
    /// ``Unavailable``, any other is thrown as it is.
    func run<Row: Sendable>(_ query: PostgresQuery, as type: Row.Type, within limit: Duration? = nil) async throws
      -> Row?
    where Row: PostgresDecodable {
      try await run(query, within: limit ?? timeout) { rows in
        for try await row in rows { return try row.decode(Row.self) }
        return nil
      }
    }

    func runRow<each Column: PostgresDecodable & Sendable>(
      _ query: PostgresQuery, as type: (repeat each Column).Type, within limit: Duration? = nil,
      outageKey: String? = nil
    ) async throws -> (repeat each Column)? {
      try await run(query, within: limit ?? timeout, outageKey: outageKey) { rows in
        for try await row in rows { return try row.decode((repeat each Column).self) }
        return nil
      }
    }

    /// Every row of `query`'s answer.
    func runAll<each Column: PostgresDecodable & Sendable>(
      _ query: PostgresQuery, as type: (repeat each Column).Type, within limit: Duration? = nil
    ) async throws -> [(repeat each Column)] {
      try await run(query, within: limit ?? timeout) { rows in
        var all: [(repeat each Column)] = []
        for try await row in rows { all.append(try row.decode((repeat each Column).self)) }
        return all
      }
    }

    /// Sends `query` within `limit`, as ``run(within:outageKey:_:)``.
    func run<Result: Sendable>(
      _ query: PostgresQuery, within limit: Duration, outageKey: String? = nil,
      consume: @escaping @Sendable (PostgresRowSequence) async throws -> Result
    ) async throws -> Result {
      try await run(within: limit, outageKey: outageKey) { client in try await consume(try await client.query(query)) }
    }

    /// Runs `statement` (one statement on `client`) within `limit`: a transient refusal (deadlock, serialization
    /// failure) is retried while time is left; a lock not available (55P03) and every "unavailable" error become
    /// ``Unavailable``, and start the outage back-off (see ``Outage``) unless they concern one key.
    func run<Result: Sendable>(
      within limit: Duration, outageKey: String? = nil,
      _ statement: @escaping @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
      let client = self.client
      if let failure = outage.shortcut(now: ContinuousClock.now) {
        // No round trip, so no suspension: yield once, so that callers in a tight loop cannot starve the probe
        // (and its deadline) of the cooperative pool.
        await Task.yield()
        throw Unavailable(error: .unavailable(underlying: failure), wasSent: false)
      }
      do {
        let result = try await withDeadline(limit, on: deadlines) {
          while true {
            do {
              return try await statement(client)
            } catch let error where isRetryable(error) {
              try await Task.sleep(for: .milliseconds(1))
            }
          }
        }
        if outage.succeeded() {
          logger.debug("rate limit: the database answers again", metadata: ["ratelimit.name": "\(name)"])
        }
        return result
      } catch {
        guard isUnavailable(error) else { throw error }
        if !isOneKeysRefusal(error), outage.failed(error, key: outageKey, now: ContinuousClock.now) {
          logger.debug(
            "rate limit: the database cannot answer; whenUnavailable decides, asking again after a back-off",
            metadata: ["ratelimit.name": "\(name)", "error": "\(error)"])
        }
        throw Unavailable(error: .unavailable(underlying: error))
      }
    }
  }

  /// A statement that always returns a row returned none.
  struct NoRow: Error {}
#endif
