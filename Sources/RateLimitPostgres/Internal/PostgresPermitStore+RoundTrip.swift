#if Postgres
  import Logging
  import PostgresNIO
  import RateLimit

  /// One round trip: within a deadline (one timer per limiter, `DeadlineTimer`), retried while the server restarts,
  /// answered at once during an outage (`Outage`), its failure an ``Unavailable`` for the policy to answer.
  extension PostgresPermitStore {
    /// The database could not answer: the policy decides. `error` is what `.throwError` throws.
    struct Unavailable: Error {
      let error: PostgresRateLimiterError
      /// Whether the statement was handed to the client (it may have reached the database), rather than
      /// answered by the outage back-off without a round trip.
      var wasSent = true
    }

    /// `SET LOCAL lock_timeout` for a decision: four fifths of `timeout`, so that a key whose lock another
    /// session holds answers 55P03 (and frees its connection) before the caller's deadline.
    var lockTimeout: String {
      let milliseconds = max(1, wholeNanoseconds(timeout, roundingUp: false) / 1_250_000)
      return "\(milliseconds)ms"
    }
  }

  /// What a round trip needs of its store: ``PostgresPermitStore`` and the leases' store send their statements
  /// through the same deadline, retries and outage back-off.
  protocol DatabaseRoundTrips: Sendable {
    var client: PostgresClient { get }
    var name: String { get }
    var timeout: Duration { get }
    var outage: Outage { get }
    var deadlines: DeadlineTimer { get }
    var logger: Logger { get }
  }

  extension PostgresPermitStore: DatabaseRoundTrips {}

  extension DatabaseRoundTrips {

    /// A prepared statement's one row, within `limit` (default: the timeout). The functions always return a row:
    /// none is a bug, not an outage.
    func firstRow<Statement: PostgresPreparedStatement>(
      of statement: Statement, within limit: Duration? = nil, from start: ContinuousClock.Instant? = nil,
      outageKey: String? = nil
    ) async throws -> Statement.Row where Statement.Row: Sendable {
      let row = try await run(within: limit ?? timeout, from: start, outageKey: outageKey) {
        client -> Statement.Row? in
        for try await row in try await client.execute(statement) { return row }
        return nil
      }
      guard let row else { throw NoRow() }
      return row
    }

    func throwingUnavailable<Value>(_ body: () async throws -> Value) async throws -> Value {
      do {
        return try await body()
      } catch let error as PostgresPermitStore.Unavailable {
        throw error.error
      }
    }

    /// A joint statement's rows, one a part (`count`), within the timeout; a statement on one key (`outageKey`)
    /// that times out starts no outage alone, as a lone decision's.
    func rows<Statement: PostgresPreparedStatement>(of statement: Statement, count: Int, outageKey: String? = nil)
      async throws -> [Statement.Row] where Statement.Row: Sendable
    {
      let rows = try await run(within: timeout, outageKey: outageKey) { client in
        var rows: [Statement.Row] = []
        for try await row in try await client.execute(statement) { rows.append(row) }
        return rows
      }
      guard rows.count == count else { throw NoRow() }
      return rows
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

    /// Sends `query` within `limit` (default: the timeout) and decodes its first row by column name
    /// (`prepare()`'s).
    func runRow<Row: Sendable>(
      _ query: PostgresQuery, within limit: Duration? = nil, outageKey: String? = nil,
      _ decode: @escaping @Sendable (PostgresRandomAccessRow) throws -> Row
    ) async throws -> Row? {
      try await run(query, within: limit ?? timeout, outageKey: outageKey) { rows in
        for try await row in rows { return try decode(row.makeRandomAccess()) }
        return nil
      }
    }

    /// Sends `query` within `limit`, as ``run(within:outageKey:_:)``.
    func run<Result: Sendable>(
      _ query: PostgresQuery, within limit: Duration, outageKey: String? = nil,
      consume: @escaping @Sendable (PostgresRowSequence) async throws -> Result
    ) async throws -> Result {
      try await run(within: limit, outageKey: outageKey) { client in try await consume(try await client.query(query)) }
    }

    /// Runs `statement` (one statement on `client`) within `limit` from `start` (the caller's reading of the
    /// continuous clock, else now): a transient refusal (deadlock, serialization failure) is retried while time
    /// is left; a lock not available (55P03) and every "unavailable" error become ``Unavailable``, and start the
    /// outage back-off (see ``Outage``) unless they concern one key.
    func run<Result: Sendable>(
      within limit: Duration, from start: ContinuousClock.Instant? = nil, outageKey: String? = nil,
      _ statement: @escaping @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
      let client = self.client
      let start = start ?? ContinuousClock.now
      if let failure = outage.shortcut(now: start) {
        // No round trip, so no suspension: yield once, so that callers in a tight loop cannot starve the probe
        // (and its deadline) of the cooperative pool.
        await Task.yield()
        throw PostgresPermitStore.Unavailable(error: .unavailable(underlying: failure), wasSent: false)
      }
      do {
        let result = try await withDeadline(limit, from: start, on: deadlines) {
          while true {
            do {
              return try await statement(client)
            } catch let error where isRetryable(error) {
              try await Task.sleep(for: .milliseconds(1))
            }
          }
        }
        databaseAnswered()
        return result
      } catch {
        // The database answered (a statement's own error, one key's refusal): any outage is over, and a probe
        // that got such an answer is done (4.3.1: a probe refused for one key's lock stayed "probing" for good,
        // and every later decision went to the policy until a restart).
        guard isUnavailable(error) else {
          databaseAnswered()
          throw error
        }
        if isOneKeysRefusal(error) {
          databaseAnswered()
        } else if isClientGone(error) {
          // This process shut its client down: not the database's outage (nothing to back off from or log).
        } else if outage.failed(error, key: outageKey, now: ContinuousClock.now) {
          // SPEC 4.3.1: an outage's start at `warning`, once.
          logger.warning(
            "rate limit: the database cannot answer; whenUnavailable decides, asking again after a back-off",
            metadata: ["ratelimit.name": "\(name)", "error": "\(error)"])
        }
        throw PostgresPermitStore.Unavailable(error: .unavailable(underlying: error))
      }
    }
  }

  extension DatabaseRoundTrips {
    /// The database answered: an outage in force ends, logged once at `info` (SPEC 4.3.1).
    func databaseAnswered() {
      guard let error = outage.succeeded() else { return }
      logger.info(
        "rate limit: the database answers again; decisions go to it",
        metadata: ["ratelimit.name": "\(name)", "error": "\(error)"])
    }
  }

  struct NoRow: Error {}
#endif
