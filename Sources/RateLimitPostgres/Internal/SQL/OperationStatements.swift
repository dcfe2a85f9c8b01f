#if Postgres
  import PostgresNIO

  // 4.2's statements on one key, prepared once per connection as a decision's are (`DecisionStatements.swift`),
  // each read as a named row: `peek`, the operations (charge, refund, reset, block, a penalty), a decision that
  // penalises its refusal, and a booking cancelled.

  /// `peek` (`ratelimit_peek_v1`): what `decide` would answer, nothing written (rolled back).
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

    func makeBindings() -> PostgresBindings { PostgresBindings(key, permits, now, lockTimeout) }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      let row = row.makeRandomAccess()
      return (try row["o_booked"].decode(Bool.self), try KeyAfter(row))
    }
  }

  /// An operation on a key (`ratelimit_operate_v2`; `PostgresRateLimiter.Operation`): the key after; nothing done
  /// if it runs after `until` (the database's clock).
  struct OperateStatement: PostgresPreparedStatement {
    static let sql = """
      SELECT o_time, o_now, o_remaining, o_rest_at, o_effective, \(StoredRule.columns) \
      FROM ratelimit_operate_v2($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
      """
    typealias Row = KeyAfter

    var key: KeyArguments
    var operation: Int32
    /// Permits (charge, refund) or nanoseconds (block, penalty); 0 for reset.
    var amount: Int64
    var now: Int64?
    var lockTimeout: String
    var until: Int64?

    func makeBindings() -> PostgresBindings { PostgresBindings(key, operation, amount, now, lockTimeout, until) }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      try KeyAfter(row.makeRandomAccess())
    }
  }

  /// A decision as `tryAcquire`'s that, refused by the rule, blocks the key for `penalty` nanoseconds in the same
  /// statement (`ratelimit_decide_penalising_v1`).
  struct DecidePenalisingStatement: PostgresPreparedStatement {
    static let sql = """
      SELECT o_time, o_now, o_id, o_booked, o_remaining, o_rest_at, o_effective, \(StoredRule.columns) \
      FROM ratelimit_decide_penalising_v1($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
      """
    /// The decision, and the name's stored rule it was decided by.
    typealias Row = (
      time: Int64, now: Int64, id: Int64?, booked: Bool, remaining: Int64, restAt: Int64, effective: Int64,
      stored: StoredRule
    )

    var key: KeyArguments
    var permits: Int64
    var now: Int64?
    var lockTimeout: String
    var id: Int64
    var penalty: Int64

    func makeBindings() -> PostgresBindings { PostgresBindings(key, permits, now, lockTimeout, id, penalty) }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      let row = row.makeRandomAccess()
      return (
        try row["o_time"].decode(Int64.self), try row["o_now"].decode(Int64.self),
        try row["o_id"].decode(Int64?.self), try row["o_booked"].decode(Bool.self),
        try row["o_remaining"].decode(Int64.self), try row["o_rest_at"].decode(Int64.self),
        try row["o_effective"].decode(Int64.self), try StoredRule(row)
      )
    }
  }

  /// A booking cancelled (`Reservation.cancel()`, `ratelimit_cancel_v4`): nothing to read back.
  struct CancelStatement: PostgresPreparedStatement {
    static let sql = "SELECT 1 FROM ratelimit_cancel_v4($1, $2, $3, $4, $5, $6, $7, false)"
    typealias Row = Int32

    var key: KeyArguments
    var id: Int64
    var now: Int64?

    func makeBindings() -> PostgresBindings { PostgresBindings(key, id, now) }
  }
#endif

#if Postgres
  import PostgresNIO

  // The rest of a limiter's statements, prepared as the others are: a zero window's read of a key's block,
  // `update`, a revocation, the sweep and `count()`. Only `prepare()`'s two run as text (once per limiter).

  /// A zero-window limiter's read of a key's block: the statement's "now", never behind the key's
  /// latest decision as in every decision function, and the end of the key's block, if any.
  struct BlockInForceStatement: PostgresPreparedStatement {
    static let sql = """
      WITH now_ AS (SELECT coalesce($3::bigint, ratelimit_clock()) AS at) \
      SELECT greatest(now_.at, coalesce(k.latest, now_.at)) AS o_now, k.blocked_until AS o_blocked_until FROM now_ \
      LEFT JOIN ratelimit_keys k ON k.name = $1 AND k.key = $2
      """
    typealias Row = (now: Int64, blockedUntil: Int64?)

    var name: ByteBuffer
    var key: ByteBuffer
    var now: Int64?

    func makeBindings() -> PostgresBindings { PostgresBindings(name, key, now) }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      let row = row.makeRandomAccess()
      return (try row["o_now"].decode(Int64.self), try row["o_blocked_until"].decode(Int64?.self))
    }
  }

  /// `update(limit:per:)` (`ratelimit_update_v2`): the name's new rule, for every process; nothing done if it runs
  /// after `until` (the database's clock).
  struct UpdateStatement: PostgresPreparedStatement {
    static let sql = "SELECT 1 FROM ratelimit_update_v2($1, $2, $3, $4, $5, $6, $7)"
    typealias Row = Int32

    var name: ByteBuffer
    var limit: Int64
    var window: Int64
    var burst: Int64?
    var now: Int64?
    var lockTimeout: String
    var until: Int64?

    func makeBindings() -> PostgresBindings { PostgresBindings(name, limit, window, burst, now, lockTimeout, until) }
  }

  /// A booking whose caller gave up waiting, taken back whether or not its decision has run yet
  /// (`ratelimit_revoke_v4`, `Revocation`).
  struct RevokeStatement: PostgresPreparedStatement {
    static let sql = "SELECT 1 FROM ratelimit_revoke_v4($1, $2, $3, $4, $5, $6, $7)"
    typealias Row = Int32

    var key: KeyArguments
    var id: Int64
    var lockTimeout: String

    func makeBindings() -> PostgresBindings { PostgresBindings(key, id, lockTimeout) }
  }

  /// `sweep()`: up to `batch` rows of keys at rest deleted (`ratelimit_sweep`); how many.
  struct SweepStatement: PostgresPreparedStatement {
    static let sql = "SELECT ratelimit_sweep($1, $2, $3)"
    typealias Row = Int32

    var name: ByteBuffer
    var now: Int64?
    var batch: Int32

    func makeBindings() -> PostgresBindings { PostgresBindings(name, now, batch) }
  }

  /// `count()`: the keys of a name not at rest, or blocked, judged under the name's latest rule.
  struct CountStatement: PostgresPreparedStatement {
    static let sql = """
      WITH now_ AS (SELECT coalesce($2::bigint, ratelimit_clock()) AS at), \
      rule AS (SELECT version FROM ratelimit_names WHERE name = $1) \
      SELECT count(*) FROM ratelimit_keys k, now_ WHERE name = $1 \
      AND (CASE WHEN k.version < (SELECT version FROM rule) \
      THEN (ratelimit_settle_v1(k, (SELECT version FROM rule), false)).rest_at ELSE rest_at END > now_.at \
      OR coalesce(blocked_until, -9223372036854775808) > now_.at)
      """
    typealias Row = Int64

    var name: ByteBuffer
    var now: Int64?

    func makeBindings() -> PostgresBindings { PostgresBindings(name, now) }
  }
#endif
