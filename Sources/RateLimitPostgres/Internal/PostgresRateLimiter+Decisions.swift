#if Postgres
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Darwin)
    import Darwin
  #endif
  import PostgresNIO
  @_spi(RateLimitIntegration) import RateLimit

  /// The round trips: each decision is one statement, bounded by `timeout`.
  extension PostgresRateLimiter {
    /// What `ratelimit_decide` is asked.
    enum Mode: Int32 {
      case tryAcquire = 0
      case reserve = 1
      case retryAfter = 2
    }

    /// One decision's answer: the instant booked for (or that would be), the decision's "now", the id.
    struct Decision {
      var time: Int64
      var now: Int64
      var id: Int64
      var booked: Bool
    }

    /// The database could not answer: the policy decides. `error` is what `.throwError` throws.
    struct Unavailable: Error {
      let error: PostgresRateLimiterError
    }

    /// Rows the automatic sweep deletes in one statement, at most.
    static let sweepBatch: Int32 = 1_000

    /// "Now" as each statement is sent: `c.now` with `.clock(c)`, `NULL` (the database's clock) by default.
    var nowSent: Int64? {
      time.clock.map { _nanoseconds($0.now, roundingUp: true) }
    }

    /// "Now" for a grant made without the database: `c.now`, or this machine's wall clock (Unix epoch).
    func localNow() -> Duration {
      if let clock = time.clock { return clock.now }
      var spec = timespec()
      clock_gettime(CLOCK_REALTIME, &spec)
      return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }

    func decide(_ mode: Mode, _ permits: Int, key: ByteBuffer, maxDelay: Int64?) async throws -> Decision {
      let sweep = mode == .retryAfter ? 0 : sweepIfDue()
      let burst = self.burst.map(Int64.init)
      let query: PostgresQuery = """
        SELECT o_time, o_now, o_id, o_booked, o_swept FROM ratelimit_decide(\(nameBytes), \(key), \
        \(Int64(limit)), \(windowNanoseconds), \(burst), \(Int64(permits)), \(nowSent), \(maxDelay), \
        \(mode.rawValue), \(sweep))
        """
      let row = try await run(query, as: (Int64, Int64, Int64?, Bool, Int32).self)
      // The function always returns a row: none is a bug, not an outage.
      guard let (time, now, id, booked, swept) = row else { throw NoRow() }
      // A full batch: more keys at rest may be left, so the next decision sweeps again.
      if swept >= Self.sweepBatch { nextSweep.withLock { $0 = .zero } }
      return Decision(time: time, now: now, id: id ?? -1, booked: booked)
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
        SELECT 1 FROM ratelimit_cancel(\(nameBytes), \(ByteBuffer(string: key)), \(Int64(limit)), \
        \(windowNanoseconds), \(burst), \(id), \(nowSent))
        """
      _ = try await throwingUnavailable { try await run(query, as: Int32.self) }
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
      try await run(query, within: limit ?? timeout) { try $0.decode(Row.self) }
    }

    func run<each Column: PostgresDecodable & Sendable>(
      _ query: PostgresQuery, as type: (repeat each Column).Type
    ) async throws -> (repeat each Column)? {
      try await run(query, within: timeout) { try $0.decode((repeat each Column).self) }
    }

    private func run<Row: Sendable>(
      _ query: PostgresQuery, within limit: Duration, decode: @escaping @Sendable (PostgresRow) throws -> Row
    ) async throws -> Row? {
      let client = self.client
      do {
        return try await withDeadline(limit) {
          for try await row in try await client.query(query) { return try decode(row) }
          return nil
        }
      } catch {
        guard isUnavailable(error) else { throw error }
        throw Unavailable(error: .unavailable(underlying: error))
      }
    }
  }

  /// A statement that always returns a row returned none.
  struct NoRow: Error {}

  /// Traps unless `value >= 1`, naming the parameter and value.
  func requirePositive(_ value: Int, _ parameter: StaticString) {
    if value < 1 { fatalError("PostgresRateLimiter: \(parameter) must be at least 1, got \(parameter): \(value)") }
  }

  /// Traps if `value` is negative, naming the parameter and value.
  func requireNonNegative(_ value: Duration, _ parameter: StaticString) {
    if value < .zero {
      fatalError("PostgresRateLimiter: \(parameter) must not be negative, got \(parameter): \(value)")
    }
  }
#endif
