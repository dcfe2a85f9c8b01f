#if Postgres
  import PostgresNIO
  import RateLimit

  /// Statements over several stores on one client: a request's policies decided for one key in one statement, all
  /// or nothing (`ratelimit_decide_all_v6`; with shadow parts and penalties, `ratelimit_decide_operated_v1`), and
  /// their grants given back in one (`ratelimit_give_back_all_v1`). Each part is decided at its own store's "now" and
  /// by its name's stored rule; a part refused alone for one permit is refused here until it can grant again.
  extension PostgresPermitStore {
    /// One part of a joint statement: its store, the permits it asks, its booking id.
    typealias Part = (store: PostgresPermitStore, permits: Int, id: Int64)

    /// `parts` decided on `key` all or nothing: each part's own answer (`booked`: whether it alone could grant).
    /// If this throws once sent, every id is revoked.
    static func decideAll(_ parts: [Part], key: ByteBuffer) async throws -> [Decision] {
      guard let first = parts.first?.store else { return [] }
      return try await answering {
        try await first.prepareIfNeeded()
        let statement = DecideAllStatement(parts, key: key, lockTimeout: first.lockTimeout)
        return try await decided(by: statement, parts, key: key, penalised: parts.map { _ in false }, withIDs: false)
      } whenUnavailable: { error in
        revoke(parts.map { ($0.store, $0.id) }, ifSent: error, key: key)
        throw error
      }
    }

    /// `parts` decided on `key` with shadow parts (never refusing) and penalties (nanoseconds): only an
    /// enforced part's refusal refuses, and then nothing is kept. Each decision carries its part's id. A
    /// penalised part's refusal is remembered here as a block's. If this throws once sent, every id is revoked.
    static func decideOperated(_ parts: [Part], shadow: [Bool], penalties: [Int64?], key: ByteBuffer)
      async throws -> [Decision]
    {
      guard let first = parts.first?.store else { return [] }
      return try await answering {
        try await first.prepareIfNeeded()
        let statement = DecideOperatedStatement(
          parts: DecideAllStatement(parts, key: key, lockTimeout: first.lockTimeout), shadow: shadow,
          penalties: penalties.map { $0 ?? 0 })
        return try await decided(
          by: statement, parts, key: key, penalised: penalties.map { $0 != nil }, withIDs: true)
      } whenUnavailable: { error in
        revoke(parts.map { ($0.store, $0.id) }, ifSent: error, key: key)
        throw error
      }
    }

    /// A joint statement's rows as decisions, one a part (its id with `withIDs`); a part refused alone for one
    /// permit is refused here until it can grant one again (a penalised part's refusal as a block's).
    private static func decided<Statement: PostgresPreparedStatement>(
      by statement: Statement, _ parts: [Part], key: ByteBuffer, penalised: [Bool], withIDs: Bool
    ) async throws -> [Decision] where Statement.Row == DecideAllStatement.Row {
      let sent = parts.map { ($0.store.localClock.now, $0.store.localRefusals?.epoch ?? 0) }
      let rows = try await parts[0].store.rows(of: statement, count: parts.count, outageKey: String(buffer: key))
      return parts.indices.map { index in
        let (part, row) = (parts[index], rows[index])
        part.store.adopt(row.stored)
        if part.permits == 1 && !row.booked {
          part.store.localRefusals?.refuse(
            key, answeredAt: row.now, time: row.time, restAt: row.restAt, sent: sent[index].0,
            epoch: sent[index].1, isBlock: penalised[index])
        }
        return Decision(
          time: row.time, now: row.now, id: withIDs ? part.id : -1, booked: row.booked, remaining: row.remaining,
          restAt: row.restAt, effective: row.effective)
      }
    }

    /// Gives back the grants `parts` (their ids) in one statement; if it fails they stay taken, logged (SPEC 4.2).
    static func giveBackAll(_ parts: [Part], key: ByteBuffer) async {
      guard let first = parts.first?.store else { return }
      for part in parts { part.store.localRefusals?.forget(key) }
      let statement = GiveBackAllStatement(parts: DecideAllStatement(parts, key: key, lockTimeout: first.lockTimeout))
      do {
        _ = try await first.rows(of: statement, count: 1)
      } catch {
        first.logger.debug(
          "rate limit: a served request's permits could not be given back; they stay taken",
          metadata: ["ratelimit.names": "\(parts.map(\.store.name))"])
      }
    }

    /// Takes back booking `id` exactly, in the lane like a decision (mode 3; `ratelimit_undo_v5` alone): the key
    /// after, or `nil` when the database did not answer. This process's refusal of the key is forgotten.
    func giveBack(_ id: Int64, permits: Int, key: ByteBuffer) async -> Decision? {
      localRefusals?.forget(key)
      let request = DecisionRequest(mode: .giveBack, permits: Int64(permits), key: key, maxDelay: nil, bookingID: id)
      guard let row = try? await send(request) else { return nil }
      return Decision(
        time: row.time, now: row.now, id: -1, booked: false, remaining: row.remaining, restAt: row.restAt,
        effective: row.effective)
    }
  }

  extension DecideAllStatement {
    /// The arguments of a joint statement for `parts` on `key`: each part's name, parameters, permits and id, at
    /// its own store's "now" (`c`'s reading as that store sends it alone, or the database's). Joint decisions,
    /// operated ones and joint give-backs take the same arguments.
    init(_ parts: [PostgresPermitStore.Part], key: ByteBuffer, lockTimeout: String) {
      let stores = parts.map(\.store)
      let nows = stores.map(\.nowSent)
      let rules = stores.map(\.sentRule)
      self.init(
        names: stores.map(\.nameBytes), key: key, limits: rules.map(\.limit), windows: rules.map(\.window),
        bursts: rules.map { $0.burst ?? 0 },
        permits: parts.map { Int64($0.permits) }, nows: nows.map { $0 ?? 0 }, clocks: nows.map { $0 != nil },
        lockTimeout: lockTimeout, ids: parts.map(\.id))
    }
  }
#endif
