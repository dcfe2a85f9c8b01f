#if Postgres
  import PostgresNIO

  /// What `ratelimit_lease_acquire_v2` answers: the decision, and the key after it.
  struct LeaseRow: Sendable {
    enum State: Int32, Sendable {
      /// Not granted, and no place taken (`tryAcquire`).
      case refused = 0
      /// Held: `id` is the lease's.
      case granted = 1
      /// A place in the key's line: `id` is the place's.
      case waiting = 2
      /// More permits than the stored limit: nothing taken.
      case exceedsCapacity = 3
      /// The waiter's place expired (its process stopped checking for longer than `leaseTimeout`).
      case gone = 4
    }

    var state: State
    var id: Int64?
    /// The name's stored limit, which decided.
    var limit: Int64
    /// The permits the key's leases hold after the decision.
    var held: Int64
    /// Whether anyone waits for the key after it.
    var waiting: Bool
  }

  /// A decision, or a waiter's check, with the releases it carries (`ratelimit_lease_acquire_v2`).
  struct LeaseAcquireStatement: PostgresPreparedStatement {
    static let sql =
      "SELECT o_state, o_id, o_lim, o_held, o_waiting FROM ratelimit_lease_acquire_v2($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
    typealias Row = LeaseRow

    var name: ByteBuffer
    var key: ByteBuffer
    var permits: Int64
    var limit: Int64
    var ttl: Int64
    var wait: Bool
    var waiter: Int64
    var releases: [Int64]
    var lockTimeout: String
    /// The new row's token, chosen here: a caller that gives up on the statement revokes it by this token.
    var token: Int64

    func makeBindings() -> PostgresBindings {
      PostgresBindings(name, key, permits, limit, ttl, wait, waiter, releases, lockTimeout, token)
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
      let row = row.makeRandomAccess()
      return LeaseRow(
        state: LeaseRow.State(rawValue: try row["o_state"].decode(Int32.self)) ?? .refused,
        id: try row["o_id"].decode(Int64?.self), limit: try row["o_lim"].decode(Int64.self),
        held: try row["o_held"].decode(Int64.self), waiting: try row["o_waiting"].decode(Bool.self))
    }
  }

  /// Releases and renewals of one name (`ratelimit_lease_keep_v1`): a row per lease it could not renew.
  struct LeaseKeepStatement: PostgresPreparedStatement {
    static let sql = "SELECT o_lost FROM ratelimit_lease_keep_v1($1, $2, $3, $4)"
    typealias Row = Int64

    var name: ByteBuffer
    var renew: [Int64]
    var release: [Int64]
    var ttl: Int64

    func makeBindings() -> PostgresBindings { PostgresBindings(name, renew, release, ttl) }
  }

  /// What callers that gave up on their statements would hold if those ran late (`ratelimit_lease_revoke_v1`).
  struct LeaseRevokeStatement: PostgresPreparedStatement {
    static let sql = "SELECT ratelimit_lease_revoke_v1($1, $2, $3, $4, $5)"
    typealias Row = Int64

    var name: ByteBuffer
    var keys: [ByteBuffer]
    var tokens: [Int64]
    var ttl: Int64
    var lockTimeout: String

    func makeBindings() -> PostgresBindings { PostgresBindings(name, keys, tokens, ttl, lockTimeout) }
  }

  /// The name's expired rows, at most `batch` of them: how many it deleted. An expired row counts for nothing,
  /// so deleting it without its key's lock changes no decision. The name's rows are read first, locking nothing
  /// (`ARRAY(…)`, evaluated once before the rest); only then are the expired ones locked by id (rows another
  /// statement holds skipped: the sweep never waits), and deleted by id, so a decision on a key whose expired
  /// row the sweep holds waits for that short step, never for the scan.
  struct LeaseSweepStatement: PostgresPreparedStatement {
    static let sql = """
      WITH gone AS ( \
        DELETE FROM ratelimit_leases WHERE id = ANY (ARRAY( \
          SELECT l.id FROM ratelimit_leases l \
          WHERE l.id = ANY (ARRAY( \
            SELECT e.id FROM ratelimit_leases e WHERE e.name = $1 AND e.expires <= ratelimit_clock() LIMIT $2)) \
          AND l.expires <= ratelimit_clock() FOR UPDATE SKIP LOCKED)) \
        RETURNING 1) \
      SELECT count(*)::bigint FROM gone
      """
    typealias Row = Int64

    var name: ByteBuffer
    var batch: Int64

    func makeBindings() -> PostgresBindings { PostgresBindings(name, batch) }
  }
#endif
