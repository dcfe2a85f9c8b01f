#if Postgres
  import PostgresNIO

  // 4.2's statements on one key, prepared once per connection as a decision's are (`DecisionStatements.swift`),
  // each read as a named row: `peek`, the operations (charge, refund, reset, block, a penalty), a decision that
  // penalises its refusal, and a booking cancelled.

  /// `peek` (`ratelimit_peek_v1`, release 10): what `decide` would answer, nothing written (rolled back).
  struct PeekStatement: PostgresPreparedStatement {
    static let sql = """
      SELECT o_booked, o_time, o_now, o_remaining, o_rest_at, o_effective, \(StoredRule.columns) \
      FROM ratelimit_peek_v1($1, $2, $3, $4, $5, $6, $7, $8)
      """
    /// Whether the request would be granted, and the key after it.
    typealias Row = (wouldBook: Bool, key: KeyAfter)

    var key: KeyArguments
    var permits: Int64
    var now: Int64?
    var lockTimeout: String

    func makeBindings() -> PostgresBindings {
      var bindings = PostgresBindings(capacity: 8)
      key.append(to: &bindings)
      bindings.append(permits)
      bindings.append(now)
      bindings.append(lockTimeout)
      return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      let (booked, time, now, remaining, restAt, effective, limit, window, burst) = try row.decode(
        (Bool, Int64, Int64, Int64, Int64, Int64, Int64?, Int64?, Int64?).self)
      return (
        booked,
        KeyAfter(
          time: time, now: now, remaining: remaining, restAt: restAt, effective: effective,
          stored: StoredRule(limit: limit, window: window, burst: burst))
      )
    }
  }

  /// An operation on a key (`ratelimit_operate_v1`, release 10; `PostgresRateLimiter.Operation`): the key after.
  struct OperateStatement: PostgresPreparedStatement {
    static let sql = """
      SELECT o_time, o_now, o_remaining, o_rest_at, o_effective, \(StoredRule.columns) \
      FROM ratelimit_operate_v1($1, $2, $3, $4, $5, $6, $7, $8, $9)
      """
    typealias Row = KeyAfter

    var key: KeyArguments
    var operation: Int32
    /// Permits (charge, refund) or nanoseconds (block, penalty); 0 for reset.
    var amount: Int64
    var now: Int64?
    var lockTimeout: String

    func makeBindings() -> PostgresBindings {
      var bindings = PostgresBindings(capacity: 9)
      key.append(to: &bindings)
      bindings.append(operation)
      bindings.append(amount)
      bindings.append(now)
      bindings.append(lockTimeout)
      return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      let (time, now, remaining, restAt, effective, limit, window, burst) = try row.decode(
        (Int64, Int64, Int64, Int64, Int64, Int64?, Int64?, Int64?).self)
      return KeyAfter(
        time: time, now: now, remaining: remaining, restAt: restAt, effective: effective,
        stored: StoredRule(limit: limit, window: window, burst: burst))
    }
  }

  /// A decision as `tryAcquire`'s that, refused by the rule, blocks the key for `penalty` nanoseconds in the same
  /// statement (`ratelimit_decide_penalising_v1`, release 10).
  struct DecidePenalisingStatement: PostgresPreparedStatement {
    static let sql = """
      SELECT o_time, o_now, o_id, o_booked, o_remaining, o_rest_at, o_effective \
      FROM ratelimit_decide_penalising_v1($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
      """
    typealias Row = (
      time: Int64, now: Int64, id: Int64?, booked: Bool, remaining: Int64, restAt: Int64, effective: Int64
    )

    var key: KeyArguments
    var permits: Int64
    var now: Int64?
    var lockTimeout: String
    var id: Int64
    var penalty: Int64

    func makeBindings() -> PostgresBindings {
      var bindings = PostgresBindings(capacity: 10)
      key.append(to: &bindings)
      bindings.append(permits)
      bindings.append(now)
      bindings.append(lockTimeout)
      bindings.append(id)
      bindings.append(penalty)
      return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      try row.decode((Int64, Int64, Int64?, Bool, Int64, Int64, Int64).self)
    }
  }

  /// A booking cancelled (`Reservation.cancel()`, `ratelimit_cancel_v4`): nothing to read back.
  struct CancelStatement: PostgresPreparedStatement {
    static let sql = "SELECT 1 FROM ratelimit_cancel_v4($1, $2, $3, $4, $5, $6, $7, false)"
    typealias Row = Int32

    var key: KeyArguments
    var id: Int64
    var now: Int64?

    func makeBindings() -> PostgresBindings {
      var bindings = PostgresBindings(capacity: 7)
      key.append(to: &bindings)
      bindings.append(id)
      bindings.append(now)
      return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int32.self) }
  }
#endif
