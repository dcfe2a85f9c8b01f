#if Postgres
  import PostgresNIO
  import RateLimit

  /// A limiter made with `window: .zero` limits nothing, yet `block` refuses its key as on any other limiter
  /// (SPEC 4.2, "block works on every limiter, one with a zero window included"), in every process: so each of
  /// its decisions reads the key's block, one round trip that writes nothing. Without a block in force it grants
  /// up to the capacity, as before; during one it answers as a `KeyedRateLimiter` with a zero window does.
  extension PostgresRateLimiter {
    /// `decide` with no limiting: granted up to the capacity, nothing stored; during a block, refused with
    /// `remaining` 0 and every wait until the block's end (`retryAfter` `nil` for more than the capacity).
    func unlimitedDecision(_ permits: Int, key: ByteBuffer) async throws -> RateLimitDecision {
      guard let block = try await store.blockInForce(key) else { return unlimitedDecision(permits) }
      let wait = block.end &- block.now
      return door.report(
        PermitVerdict(
          isGranted: false, remaining: 0, resetAfter: wait, retryAfter: permits > capacity ? nil : wait,
          effectiveWindow: wait))
    }

    /// `reserve` with no limiting: booked now, nothing stored; during a block, at its end (beyond `maxDelay`:
    /// nothing booked).
    func unlimitedBooking(_ request: Request, within maxDelay: Duration?) async throws -> Outcome {
      let (permits, key) = (request.permits, request.key.string)
      guard let block = try await store.blockInForce(request.key.bytes) else {
        return .booked(Reservation(permits: permits, key: key, at: store.localNow()))
      }
      let delay = Duration.nanoseconds(block.end &- block.now)
      if let maxDelay, delay > maxDelay { return .exceedsMaxDelay(delay) }
      return .booked(
        Reservation(permits: permits, key: key, time: store.onClock(block.end), delay: delay, canceller: .none))
    }
  }

  extension PostgresPermitStore {
    /// The block in force on `key` now: its end and "now", in nanoseconds on the time line ``nowSent`` sends;
    /// `nil` when there is none. "Unavailable" is thrown as for a decision.
    func blockInForce(_ key: ByteBuffer) async throws -> (end: Int64, now: Int64)? {
      try await prepareIfNeeded()
      let statement = BlockInForceStatement(name: nameBytes, key: key, now: nowSent)
      let (now, end) = try await firstRow(of: statement, outageKey: String(buffer: key))
      guard let end, end > now else { return nil }
      return (end, now)
    }
  }
#endif
