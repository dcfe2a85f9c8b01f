#if Postgres
  import PostgresNIO
  import RateLimit

  /// Sending decisions (and a served request's give-back, SPEC 4.2): alone when nothing is in flight, else
  /// together with those queued meanwhile (see ``Coalescer``).
  extension PostgresPermitStore {
    /// The answer to `request`, in one round trip, shared with the decisions that queued beside it.
    ///
    /// One blocked key waits alone (SPEC 4.1.1): a statement in the lane waits at most ``laneLockTimeout`` for a
    /// key's lock, so a key whose lock another session holds never holds up the decisions queued behind it; the
    /// decision of that key is then sent again outside the lane, where it waits for its lock as long as its own
    /// deadline allows (and a lock not had is that key's refusal, never an outage). 4.1 waited in the lane: 14 of
    /// 20 fresh keys went to the policy behind one held key.
    func send(_ request: DecisionRequest) async throws -> DecisionRow {
      // The one reading of the continuous clock a lone decision makes: its deadline, the outage's "now".
      let sent = ContinuousClock.now
      let deadline = sent + timeout
      let slot = DecisionSlot()
      guard coalescer.sendsAtOnce(orQueue: PendingDecision(request: request, deadline: deadline, slot: slot)) else {
        do {
          return try await slot.wait(until: deadline, timeout: timeout, on: deadlines)
        } catch is KeyLockHeld {
          return try await decideOutsideTheLane(request, until: deadline)
        }
      }
      let result: Result<DecisionRow, any Error>
      do {
        result = .success(
          try await decide(
            request, sweep: request.mode.sweeps ? sweepIfDue(at: request.localNow ?? localClock.now) : 0,
            from: sent, within: timeout, lockTimeout: Self.laneLockTimeout))
      } catch {
        result = .failure(error)
      }
      sendQueued()
      if case .failure(let error) = result, Self.isKeyLockNotAvailable(error) {
        return try await decideOutsideTheLane(request, until: deadline)
      }
      return try result.get()
    }

    /// How long a statement in the lane waits for a key's lock before its decision goes outside the lane.
    static let laneLockTimeout = "1ms"

    /// Whether `error` says that a key's lock was not had in time (55P03): nothing was booked.
    static func isKeyLockNotAvailable(_ error: any Error) -> Bool {
      guard let unavailable = error as? Unavailable, case .unavailable(let underlying) = unavailable.error,
        let error = underlying as? PSQLError
      else { return false }
      return error.serverInfo?[.sqlState] == "55P03"
    }

    /// `request` alone, not in the lane: its key's lock was held elsewhere. It waits for the lock four fifths of
    /// what is left until `deadline`, so that a lock never had answers 55P03 (that key's refusal) before the
    /// deadline (which would count towards an outage).
    private func decideOutsideTheLane(_ request: DecisionRequest, until deadline: ContinuousClock.Instant)
      async throws -> DecisionRow
    {
      let now = ContinuousClock.now
      let left = deadline - now
      let milliseconds = wholeNanoseconds(left, roundingUp: false) / 1_250_000
      guard milliseconds >= 1 else {
        throw Unavailable(error: .unavailable(underlying: KeyLockHeld()), wasSent: false)
      }
      return try await decide(request, sweep: 0, from: now, within: left, lockTimeout: "\(milliseconds)ms")
    }

    /// Sends what queued while a statement was in flight, batch after batch, until the queue is empty.
    private func sendQueued() {
      guard let first = coalescer.nextBatch() else { return }
      Task {
        var batch = first
        while true {
          await send(batch)
          guard let next = coalescer.nextBatch() else { return }
          batch = next
        }
      }
    }

    /// One statement for `batch` (those whose callers still wait), within the latest of their deadlines; each
    /// caller gets its own row, or the statement's failure.
    private func send(_ batch: [PendingDecision]) async {
      let live = batch.filter { $0.slot.markSent() }
      guard let latest = live.map(\.deadline).max() else { return }
      coalescer.countStatement()
      let sweep =
        live.contains { $0.request.mode.sweeps }
        ? sweepIfDue(at: live.compactMap(\.request.localNow).max() ?? localClock.now) : 0
      let now = ContinuousClock.now
      let within = max(.zero, latest - now)
      do {
        if live.count == 1 {
          do {
            let row = try await decide(
              live[0].request, sweep: sweep, from: now, within: within, lockTimeout: Self.laneLockTimeout)
            live[0].slot.finish(.success(row))
          } catch  where Self.isKeyLockNotAvailable(error) {
            live[0].slot.finish(.failure(KeyLockHeld()))
          }
          return
        }
        let rule = sentRule
        let statement = DecideManyStatement(
          name: nameBytes, keys: live.map(\.request.key), limit: rule.limit, window: rule.window,
          burst: rule.burst, permits: live.map(\.request.permits), now: nowSent,
          maxDelays: live.map { $0.request.maxDelay ?? .max }, modes: live.map(\.request.mode.rawValue),
          sweep: sweep, lockTimeout: Self.laneLockTimeout, ids: live.map { $0.request.bookingID ?? 0 })
        let rows = try await run(within: within, from: now, outageKey: String(buffer: live[0].request.key)) {
          client in
          var rows: [DecideManyStatement.Row] = []
          for try await row in try await client.execute(statement) { rows.append(row) }
          return rows
        }
        guard rows.count == live.count else { throw NoRow() }
        if let swept = rows.first?.swept { sweptRows(swept) }
        if let stored = rows.first?.stored { adopt(stored) }
        for (pending, row) in zip(live, rows) {
          guard !row.blocked, let time = row.time, let now = row.now, let remaining = row.remaining,
            let restAt = row.restAt, let effective = row.effective
          else {
            // Its key's lock was held elsewhere: its caller sends it again, outside the lane.
            pending.slot.finish(.failure(KeyLockHeld()))
            continue
          }
          pending.slot.finish(
            .success(
              (
                time: time, now: now, id: row.id, booked: row.booked, swept: row.swept, remaining: remaining,
                restAt: restAt, effective: effective
              )))
        }
      } catch  where Self.isKeyLockNotAvailable(error) {
        // A lock not had within the lane's wait (another session's key lock, or a relation being extended): the
        // statement booked nothing; each caller sends its decision again, outside the lane.
        for pending in live { pending.slot.finish(.failure(KeyLockHeld())) }
      } catch {
        for pending in live { pending.slot.finish(.failure(error)) }
      }
    }

    /// One decision, alone in its statement.
    private func decide(
      _ request: DecisionRequest, sweep: Int32, from start: ContinuousClock.Instant, within deadline: Duration,
      lockTimeout: String
    ) async throws -> DecisionRow {
      if request.mode == .giveBack {
        return try await giveBack(request, from: start, within: deadline, lockTimeout: lockTimeout)
      }
      let statement = DecideStatement(
        key: keyArguments(request.key), permits: request.permits, now: nowSent, maxDelay: request.maxDelay,
        mode: request.mode.rawValue, sweep: sweep, lockTimeout: lockTimeout, id: request.bookingID)
      let (row, stored) = try await firstRow(
        of: statement, within: deadline, from: start, outageKey: String(buffer: request.key))
      sweptRows(row.swept)
      adopt(stored)
      return row
    }

    /// One give-back, alone in its statement (`ratelimit_undo_v5`): the key after it.
    private func giveBack(
      _ request: DecisionRequest, from start: ContinuousClock.Instant, within deadline: Duration,
      lockTimeout: String
    ) async throws -> DecisionRow {
      let statement = UndoStatement(
        key: keyArguments(request.key), permits: request.permits, id: request.bookingID ?? 0, now: nowSent,
        lockTimeout: lockTimeout)
      let row = try await firstRow(
        of: statement, within: deadline, from: start, outageKey: String(buffer: request.key))
      return (
        time: row.time, now: row.now, id: nil, booked: false, swept: 0, remaining: row.remaining,
        restAt: row.restAt, effective: row.effective
      )
    }

    /// A sweep that deleted a whole batch may have left more: the next decision sweeps again.
    private func sweptRows(_ swept: Int32) {
      if swept >= Self.sweepBatch { nextSweep.withLock { $0 = .zero } }
    }
  }
#endif
