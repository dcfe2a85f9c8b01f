#if Postgres
  import PostgresNIO
  import RateLimit

  /// 4.2's operations as the database answers them, each one round trip (after `prepare`, once): the façade
  /// (`PostgresRateLimiter+Operations.swift`) checks the arguments and turns the key after into a report. Each reads
  /// the name's stored rule in the same statement and adopts it (another process's `update`). "Unavailable" is
  /// thrown as ``Unavailable``.
  extension PostgresPermitStore {
    /// What a key's decision on `permits` would be now, nothing written (`ratelimit_peek_v1`, rolled back).
    func peek(_ permits: Int, key: ByteBuffer) async throws -> (wouldBook: Bool, after: KeyAfter) {
      try await prepareIfNeeded()
      let statement = PeekStatement(
        key: keyArguments(key), permits: Int64(permits), now: nowSent, lockTimeout: lockTimeout)
      let row = try await firstRow(of: statement)
      adopt(row.key.stored)
      return (row.wouldBook, row.key)
    }

    /// Charges, refunds, resets, blocks or penalises `key` (`ratelimit_operate_v2`): the key after. This
    /// process's refusal of the key may end earlier now (SPEC 4.2, "Local refusals"): it is forgotten. Sent with
    /// its deadline on the database's clock: if it throws, it never takes effect later (``operationDeadline()``).
    func operate(_ operation: Int32, _ amount: Int64, key: ByteBuffer) async throws -> KeyAfter {
      try await prepareIfNeeded()
      let statement = OperateStatement(
        key: keyArguments(key), operation: operation, amount: amount, now: nowSent, lockTimeout: lockTimeout,
        until: operationDeadline())
      let after = try await firstRow(of: statement)
      localRefusals?.forget(key)
      adopt(after.stored)
      return after
    }

    /// The name's new rule, for every process (`ratelimit_update_v2`, with its deadline as an operation's); this
    /// process's refusals are forgotten.
    /// The caller has changed its door's parameters, and takes them back if this throws.
    func update(limit: Int, window: Duration, burst: Int?) async throws {
      let statement = UpdateStatement(
        name: nameBytes, limit: Int64(limit),
        window: Int64(clamping: max(1, wholeNanoseconds(window, roundingUp: true))), burst: burst.map(Int64.init),
        now: nowSent, lockTimeout: lockTimeout, until: operationDeadline())
      _ = try await firstRow(of: statement)
      localRefusals?.forgetAll()
    }

    /// A decision that, refused by the rule, blocks the key for `penalty` nanoseconds in the same statement
    /// (`ratelimit_decide_penalising_v1`), with booking id `id` (revoked later if this throws once sent). A
    /// refusal of one permit is remembered here as a block's.
    func decidePenalising(_ permits: Int, key: ByteBuffer, penalty: Int64, id: Int64) async throws -> Decision {
      try await prepareIfNeeded()
      let (sent, epoch) = (localClock.now, localRefusals?.epoch ?? 0)
      let statement = DecidePenalisingStatement(
        key: keyArguments(key), permits: Int64(permits), now: nowSent, lockTimeout: lockTimeout, id: id,
        penalty: penalty)
      let row = try await answering {
        try await firstRow(of: statement, outageKey: String(buffer: key))
      } whenUnavailable: { error in
        Self.revoke([(self, id)], ifSent: error, key: key)
        throw error
      }
      adopt(row.stored)
      if !row.booked, permits == 1 {
        // Refused only during a block: its own, or one in force.
        localRefusals?.refuse(
          key, answeredAt: row.now, time: row.time, restAt: row.restAt, sent: sent, epoch: epoch, isBlock: true)
      }
      return Decision(
        time: row.time, now: row.now, id: row.id ?? -1, booked: row.booked, remaining: row.remaining,
        restAt: row.restAt, effective: row.effective)
    }

    /// The keys of the name not at rest, or blocked (`count()`).
    func count() async throws -> Int {
      try await prepareIfNeeded()
      return Int(try await firstRow(of: CountStatement(name: nameBytes, now: nowSent)))
    }

    /// Deletes the rows of keys at rest, a batch a statement, until a batch is not full (`sweep()`).
    func sweep() async throws {
      try await prepareIfNeeded()
      var deleted = Self.sweepBatch
      while deleted >= Self.sweepBatch {
        deleted = try await firstRow(of: SweepStatement(name: nameBytes, now: nowSent, batch: Self.sweepBatch))
      }
    }
  }
#endif
