#if Postgres
  import PostgresNIO

  // What the statements on a key are sent with, and what they read back beside their function's row.

  /// What every statement on one key of one name is sent with: the name, the key, this limiter's parameters
  /// (the stored rule decides; these are for a name not stored yet).
  struct KeyArguments: Sendable, StatementArgument {
    var name: ByteBuffer
    var key: ByteBuffer
    var limit: Int64
    var window: Int64
    var burst: Int64?

    func append(to bindings: inout PostgresBindings) {
      for argument: any StatementArgument in [name, key, limit, window, burst] { argument.append(to: &bindings) }
    }
  }

  /// The key after a statement that books nothing: when the same request would be booked (`time`), the statement's
  /// "now", what is left, when the key is at rest, its effective window; and the name's rule, read in the same
  /// statement (another process's `update`).
  struct KeyAfter: Sendable {
    var time: Int64
    var now: Int64
    var remaining: Int64
    var restAt: Int64
    var effective: Int64
    var stored: StoredRule
  }

  extension KeyAfter {
    /// Read by column name from a statement that selects `o_time`, `o_now`, `o_remaining`, `o_rest_at`,
    /// `o_effective` and ``StoredRule/columns``.
    init(_ row: PostgresRandomAccessRow) throws {
      time = try row["o_time"].decode(Int64.self)
      now = try row["o_now"].decode(Int64.self)
      remaining = try row["o_remaining"].decode(Int64.self)
      restAt = try row["o_rest_at"].decode(Int64.self)
      effective = try row["o_effective"].decode(Int64.self)
      stored = try StoredRule(row)
    }
  }

  /// A name's rule as `ratelimit_names` stores it (`nil`s: no row yet), and the database's clock when it was read.
  struct StoredRule: Sendable {
    var limit: Int64?
    var window: Int64?
    var burst: Int64?
    /// `ratelimit_clock()` once the statement's function has run: what the store learns the database's clock
    /// from (``PostgresPermitStore/databaseClock``).
    var clock: Int64? = nil

    /// The columns every function on a key answers with: the rule it decided by, as its decision read it under
    /// the key's lock (`NULL`s: none stored), and the database's clock at its end. A statement names no table:
    /// a table named in a statement is locked before the function can set `lock_timeout`, and a statement
    /// waiting on that lock (another session's `LOCK TABLE`) ran and booked after its caller had been answered
    /// (4.3.1; the rule was read in subqueries).
    static let columns = "o_lim, o_win, o_burst, o_clock"
  }

  extension StoredRule {
    /// Read by column name (``columns``: `o_lim`, `o_win`, `o_burst`, `o_clock`).
    init(_ row: PostgresRandomAccessRow) throws {
      self.init(
        limit: try row["o_lim"].decode(Int64?.self), window: try row["o_win"].decode(Int64?.self),
        burst: try row["o_burst"].decode(Int64?.self), clock: try row["o_clock"].decode(Int64?.self))
    }
  }

  extension PostgresRateLimiter.Decision {
    /// The key after a statement that booked nothing, as a decision reports it (`booked`: whether the same
    /// request would be, for `peek`).
    init(_ after: KeyAfter, booked: Bool) {
      self.init(
        time: after.time, now: after.now, id: -1, booked: booked, remaining: after.remaining, restAt: after.restAt,
        effective: after.effective)
    }
  }
#endif
