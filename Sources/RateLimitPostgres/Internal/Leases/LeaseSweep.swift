#if Postgres
  import PostgresNIO
  import RateLimit

  /// The rows of keys nobody uses again: a lease whose holder died, a waiter's place, a revoked statement's
  /// token. Each expires on the database's clock and counts for nothing from then on, but only a statement on
  /// its key deletes it there, and a key used once never sees another. So a decision of this limiter is
  /// followed, at most once per `leaseTimeout`, by a sweep of the name's expired rows in the background (never
  /// on the caller's path): a statement of at most ``LeaseStore/sweepBatch`` rows, another while a batch comes
  /// back full. The database then keeps the keys in use, whatever came and went.
  ///
  /// Housekeeping, not a decision: it skips rows another statement holds (it never waits, so no cycle), it
  /// locks rows only once it has found them (a decision waits at most for the deletion, never for the scan of
  /// the name's rows, which costs the database one pass over them per `leaseTimeout` and process), it is
  /// bounded by `leaseTimeout`, and a failure is not an outage (the next sweep, a `leaseTimeout` later, tries
  /// again).
  extension LeaseStore {
    /// At most this many rows a statement.
    static let sweepBatch = 1_000

    /// Starts a sweep unless this limiter started one within `leaseTimeout` (`now`: the decision's reading).
    func sweepIfDue(at now: ContinuousClock.Instant) {
      let due = sweptAt.withLock { sweptAt -> Bool in
        if let last = sweptAt, now - last < leaseTimeout { return false }
        sweptAt = now
        return true
      }
      if due { Task { [weak self] in await self?.sweep() } }
    }

    private func sweep() async {
      let statement = LeaseSweepStatement(name: nameBytes, batch: Int64(Self.sweepBatch))
      let client = self.client
      for _ in 0..<100 {
        let deleted = try? await withDeadline(leaseTimeout, on: deadlines) {
          var deleted: Int64 = 0
          for try await count in try await client.execute(statement) { deleted = count }
          return deleted
        }
        guard deleted == Int64(Self.sweepBatch) else { return }
      }
    }
  }
#endif
