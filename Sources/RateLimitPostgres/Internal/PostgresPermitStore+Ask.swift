#if Postgres
  import PostgresNIO
  import RateLimit

  /// A decision asked of the database (`ask`: the statement a lone decision or a batch sends), the booking it
  /// may leave behind (cancelled, or revoked once the database answers again), and when a decision sweeps.
  extension PostgresPermitStore {
    /// What `ratelimit_decide` is asked; in the lane (`ratelimit_decide_many_v7`), a give-back too.
    enum Mode: Int32 {
      case tryAcquire = 0
      case reserve = 1
      case retryAfter = 2
      /// Takes booking `bookingID` of `permits` back exactly (`ratelimit_undo_v5`) and reports the key after it.
      case giveBack = 3

      /// Whether a statement carrying it may sweep rows at rest: one that books (a read or a give-back never
      /// does, as 4.1's lone statements never did).
      var sweeps: Bool { self == .tryAcquire || self == .reserve }
    }

    /// One decision's answer: the instant booked for (or that would be), the decision's "now", the id, and the
    /// key after it (remaining permits, the instant it is at rest).
    struct Decision {
      var time: Int64
      var now: Int64
      var id: Int64
      var booked: Bool
      var remaining: Int64 = 0
      var restAt: Int64 = .min
      /// Nanoseconds until one more permit once `remaining` are taken (`RateLimitDecision.effectiveWindow`).
      var effective: Int64 = 0
    }

    /// Rows the automatic sweep deletes in one statement, at most.
    static let sweepBatch: Int32 = 1_000

    /// The decision `mode` of `permits` for `key`, in one round trip (alone or coalesced), asked at `now`
    /// (`localClock`'s reading at the door). `remembering`, a refused `tryAcquire` of one permit is refused here
    /// from `now` until it can grant. If the statement fails once sent, its booking is revoked.
    func ask(
      _ mode: Mode, _ permits: Int, key: ByteBuffer, maxDelay: Int64?, at now: Duration, remembering: Bool = false
    ) async throws -> Decision {
      try await prepareIfNeeded()
      // Read once prepared: preparing starts listening to other processes' operations, a new epoch.
      let epoch = localRefusals?.epoch ?? 0
      // A booking's id chosen here, above the sequence's range, so that a decision this caller gives up on can
      // be revoked whether or not the database has run it yet.
      let request = DecisionRequest(
        mode: mode, permits: Int64(permits), key: key, maxDelay: maxDelay,
        bookingID: mode == .retryAfter ? nil : Int64.random(in: (1 << 62)...Int64.max), localNow: now)
      let row = try await answering {
        try await send(request)
      } whenUnavailable: { error in
        Self.revoke(request.bookingID.map { [(self, $0)] } ?? [], ifSent: error, key: key)
        throw error
      }
      if remembering, let localRefusals, permits == 1, !row.booked, mode == .tryAcquire {
        localRefusals.refuse(
          key, answeredAt: row.now, time: row.time, restAt: row.restAt, sent: now, epoch: epoch)
      }
      return Decision(
        time: row.time, now: row.now, id: row.id ?? -1, booked: row.booked, remaining: row.remaining,
        restAt: row.restAt, effective: row.effective)
    }

    /// This process's refusal of `key` in force now (`localRefusals`), and the local clock's reading it was judged
    /// at, read once; `nil` when there is none, or with `localRefusals: false`.
    func refusalInForce(for key: ByteBuffer) -> (refusal: LocalRefusals.Refusal, now: Duration)? {
      guard localRefusals != nil else { return nil }
      let now = localClock.now
      return refusalInForce(for: key, at: now).map { ($0, now) }
    }

    /// This process's refusal of `key` in force at `now` (a reading of `localClock`); `nil` when there is none.
    func refusalInForce(for key: ByteBuffer, at now: Duration) -> LocalRefusals.Refusal? {
      localRefusals?.refusal(for: key, at: now)
    }

    /// The one rule for a statement that failed: once sent, it may run (or have run) without its caller, so the
    /// bookings it carried (each with its store) are revoked once the database answers; one never sent booked
    /// nothing. Every decision that books (`ask`, a penalised decision, a joint one) calls it.
    static func revoke(
      _ bookings: [(store: PostgresPermitStore, id: Int64)], ifSent error: Unavailable, key: ByteBuffer
    ) {
      guard error.wasSent else { return }
      for booking in bookings { booking.store.revokeLater(booking.id, key: key) }
    }

    /// The statement that revokes booking `id` of `key`, its wait for the key's lock bounded as a decision's.
    func revokeStatement(_ id: Int64, key: ByteBuffer) -> RevokeStatement {
      RevokeStatement(key: keyArguments(key), id: id, lockTimeout: lockTimeout)
    }

    /// How many rows of keys at rest this decision sweeps first: a batch at most once per `window` (at least once
    /// a minute), on `localClock` (`now`: its reading at the door); 0 otherwise.
    func sweepIfDue(at now: Duration) -> Int32 {
      let interval = min(window, .seconds(60))
      return nextSweep.withLock { next in
        guard now >= next else { return 0 }
        next = now + interval
        return Self.sweepBatch
      }
    }

    /// Gives booking `id` of `keyBytes` back (``PostgresRateLimiter/Reservation/cancel()``).
    func cancel(_ id: Int64, key keyBytes: ByteBuffer) async throws {
      let statement = CancelStatement(key: keyArguments(keyBytes), id: id, now: nowSent)
      _ = try await throwingUnavailable { try await firstRow(of: statement) }
      localRefusals?.forget(keyBytes)
    }

    /// What every statement on `key` is sent with: this limiter's name and parameters.
    func keyArguments(_ key: ByteBuffer) -> KeyArguments {
      let rule = sentRule
      return KeyArguments(name: nameBytes, key: key, limit: rule.limit, window: rule.window, burst: rule.burst)
    }

    /// The rule a statement is sent with (the stored one decides; this one for a name not stored yet): this
    /// limiter's parameters now, read once, so that limit, window and burst are one rule's.
    var sentRule: (limit: Int64, window: Int64, burst: Int64?) {
      let parameters = door.parameters
      return (
        Int64(parameters.limit), max(1, wholeNanoseconds(parameters.window, roundingUp: true)),
        parameters.burst.map(Int64.init)
      )
    }
  }
#endif
