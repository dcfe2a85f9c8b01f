#if Postgres
  import PostgresNIO

  /// A decision's statements, prepared once per connection (PostgresNIO's `PostgresPreparedStatement`): a lone
  /// decision is sent without its text being parsed and planned again each time (about 45 µs of a refused
  /// decision's 180 µs on the server, measured with `pgbench -M prepared` against `-M extended`).
  struct DecideStatement: PostgresPreparedStatement {
    static let sql = """
      SELECT o_time, o_now, o_id, o_booked, o_swept, o_remaining, o_rest_at, o_effective, \(StoredRule.columns) \
      FROM ratelimit_decide_v4($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
      """
    /// The decision, and the name's stored rule it was decided by (`update` may have changed it): one function,
    /// which reads the rule and the key once.
    typealias Row = (decision: DecisionRow, stored: StoredRule)

    var key: KeyArguments
    var permits: Int64
    var now: Int64?
    var maxDelay: Int64?
    var mode: Int32
    var sweep: Int32
    var lockTimeout: String
    var id: Int64?

    func makeBindings() -> PostgresBindings {
      PostgresBindings(key, permits, now, maxDelay, mode, sweep, lockTimeout, id)
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      let row = row.makeRandomAccess()
      return (
        (
          try row["o_time"].decode(Int64.self), try row["o_now"].decode(Int64.self),
          try row["o_id"].decode(Int64?.self), try row["o_booked"].decode(Bool.self),
          try row["o_swept"].decode(Int32.self), try row["o_remaining"].decode(Int64.self),
          try row["o_rest_at"].decode(Int64.self), try row["o_effective"].decode(Int64.self)
        ),
        try StoredRule(row)
      )
    }
  }

  /// Several decisions (and give-backs, mode 3) in one statement (`ratelimit_decide_many_v7`), prepared once per
  /// connection; a row per decision, in order, its values `NULL` when its key's lock was held elsewhere (`o_blocked`).
  struct DecideManyStatement: PostgresPreparedStatement {
    static let sql = """
      SELECT o_time, o_now, o_id, o_booked, o_swept, o_remaining, o_rest_at, o_blocked, o_effective, \
      \(StoredRule.columns) \
      FROM ratelimit_decide_many_v7($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
      """
    /// A decision's answer, or `blocked` (its key's lock held elsewhere) with its values `nil`.
    typealias Row = (
      time: Int64?, now: Int64?, id: Int64?, booked: Bool, swept: Int32, remaining: Int64?, restAt: Int64?,
      blocked: Bool, effective: Int64?, stored: StoredRule
    )

    var name: ByteBuffer
    var keys: [ByteBuffer]
    var limit: Int64
    var window: Int64
    var burst: Int64?
    var permits: [Int64]
    var now: Int64?
    var maxDelays: [Int64]
    var modes: [Int32]
    var sweep: Int32
    var lockTimeout: String
    var ids: [Int64]

    func makeBindings() -> PostgresBindings {
      PostgresBindings(name, keys, limit, window, burst, permits, now, maxDelays, modes, sweep, lockTimeout, ids)
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      let row = row.makeRandomAccess()
      return (
        try row["o_time"].decode(Int64?.self), try row["o_now"].decode(Int64?.self),
        try row["o_id"].decode(Int64?.self), try row["o_booked"].decode(Bool.self),
        try row["o_swept"].decode(Int32.self), try row["o_remaining"].decode(Int64?.self),
        try row["o_rest_at"].decode(Int64?.self), try row["o_blocked"].decode(Bool.self),
        try row["o_effective"].decode(Int64?.self), try StoredRule(row)
      )
    }
  }

  /// Several policies' decisions for one key, all or nothing (`ratelimit_decide_all_v6`), prepared
  /// once per connection; a row per part, in order.
  /// `ratelimit_decide_operated_v1`: ``DecideAllStatement``'s parts, each shadow or not, with its penalty.
  struct DecideOperatedStatement: PostgresPreparedStatement {
    static let sql = """
      SELECT o_booked, o_time, o_now, o_remaining, o_rest_at, o_effective, \(StoredRule.columns) \
      FROM ratelimit_decide_operated_v1($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
      \(DecideAllStatement.inOrder)
      """
    typealias Row = DecideAllStatement.Row

    var parts: DecideAllStatement
    var shadow: [Bool]
    /// Nanoseconds; 0: none.
    var penalties: [Int64]

    func makeBindings() -> PostgresBindings {
      var bindings = parts.makeBindings()
      shadow.append(to: &bindings)
      penalties.append(to: &bindings)
      return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try parts.decodeRow(row) }
  }

  struct DecideAllStatement: PostgresPreparedStatement {
    static let sql = """
      SELECT o_booked, o_time, o_now, o_remaining, o_rest_at, o_effective, \(StoredRule.columns) \
      FROM ratelimit_decide_all_v6($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \(inOrder)
      """
    /// The parts' rows in the parts' order, whatever order the function returned them in.
    static let inOrder = "WITH ORDINALITY AS d ORDER BY d.ordinality"
    /// A part's own answer (`booked`), the instant it is (or would be) booked for, its "now", its key after
    /// the decision, and its name's stored rule.
    typealias Row = (
      booked: Bool, time: Int64, now: Int64, remaining: Int64, restAt: Int64, effective: Int64, stored: StoredRule
    )

    var names: [ByteBuffer]
    var key: ByteBuffer
    var limits: [Int64]
    var windows: [Int64]
    /// 0: a sliding window.
    var bursts: [Int64]
    var permits: [Int64]
    var nows: [Int64]
    /// Whether each part's "now" is `nows[j]` (a limiter on `.clock(c)`) rather than the database's clock.
    var clocks: [Bool]
    var lockTimeout: String
    var ids: [Int64]

    func makeBindings() -> PostgresBindings {
      PostgresBindings(names, key, limits, windows, bursts, permits, nows, clocks, lockTimeout, ids)
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      let row = row.makeRandomAccess()
      return (
        try row["o_booked"].decode(Bool.self), try row["o_time"].decode(Int64.self),
        try row["o_now"].decode(Int64.self), try row["o_remaining"].decode(Int64.self),
        try row["o_rest_at"].decode(Int64.self), try row["o_effective"].decode(Int64.self), try StoredRule(row)
      )
    }
  }

  /// A grant taken back exactly (`ratelimit_undo_v5`), prepared once per connection: the key after.
  struct UndoStatement: PostgresPreparedStatement {
    static let sql = """
      SELECT o_time, o_now, o_remaining, o_rest_at, o_effective \
      FROM ratelimit_undo_v5($1, $2, $3, $4, $5, $6, $7, $8, $9)
      """
    /// The key after the undo: when the same request would be booked, "now", what is left, when it is at rest.
    typealias Row = (time: Int64, now: Int64, remaining: Int64, restAt: Int64, effective: Int64)

    var key: KeyArguments
    var permits: Int64
    var id: Int64
    var now: Int64?
    var lockTimeout: String

    func makeBindings() -> PostgresBindings { PostgresBindings(key, permits, id, now, lockTimeout) }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      let row = row.makeRandomAccess()
      return (
        try row["o_time"].decode(Int64.self), try row["o_now"].decode(Int64.self),
        try row["o_remaining"].decode(Int64.self), try row["o_rest_at"].decode(Int64.self),
        try row["o_effective"].decode(Int64.self)
      )
    }
  }

  /// A joint decision's grants given back in one statement (`ratelimit_give_back_all_v1`), prepared
  /// once per connection, with a joint decision's arguments (those of the parts to give back, their booking
  /// ids among them): how many parts it was given.
  struct GiveBackAllStatement: PostgresPreparedStatement {
    static let sql = "SELECT ratelimit_give_back_all_v1($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    typealias Row = Int32

    var parts: DecideAllStatement

    func makeBindings() -> PostgresBindings { parts.makeBindings() }
  }
#endif
