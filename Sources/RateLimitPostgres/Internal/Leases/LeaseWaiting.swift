#if Postgres
  import PostgresNIO
  import RateLimit

  /// One `acquire` of a `PostgresConcurrencyLimiter`: a decision that takes a place in the key's line when it
  /// cannot be served at once, then checks its place when woken (a `lease:` notification of its key or name) and
  /// at least every `leaseTimeout / 3`, each check renewing the place. Cancelled or past `maxWait`, it gives its
  /// place back (a release of the place: the waiters behind it move up at once) and throws.
  struct LeaseWaiting {
    let store: LeaseStore
    let permits: Int
    let key: String
    let keyBytes: ByteBuffer

    /// Throws `PostgresPermitStore.Unavailable` for the limiter's policy to answer, its place given back.
    func run(started: ContinuousClock.Instant, maxWait: Duration?) async throws -> Lease {
      let deadline = maxWait.map { started + $0 }
      let signal = WakeSignal()
      let keyArray = Array(key.utf8)
      store.addWaiter(signal, key: keyArray)
      defer { store.removeWaiter(signal, key: keyArray) }
      var row = try await store.acquire(permits, key: keyBytes, wait: maxWait != .zero)
      while true {
        switch row.state {
        case .granted:
          guard let id = row.id else { throw NoRow() }
          return store.lease(permits, id: id)
        case .exceedsCapacity:
          throw PostgresRateLimiterError.exceedsCapacity(requested: permits, capacity: Int(row.limit))
        case .refused:
          throw RateLimiterError.waitedTooLong(maxWait: maxWait ?? .zero)
        case .gone:
          // The place expired (this process was cut off longer than `leaseTimeout`): a new one, at the end.
          row = try await store.acquire(permits, key: keyBytes, wait: true)
        case .waiting:
          guard let id = row.id else { throw NoRow() }
          var wait = store.checkPeriod
          if let deadline { wait = min(wait, deadline - ContinuousClock.now) }
          if wait > .zero { await signal.wait(atMost: wait) }
          if Task.isCancelled {
            store.giveUp(id, key: keyBytes)
            throw CancellationError()
          }
          if let deadline, let maxWait, ContinuousClock.now >= deadline {
            store.giveUp(id, key: keyBytes)
            throw RateLimiterError.waitedTooLong(maxWait: maxWait)
          }
          do {
            row = try await store.acquire(permits, key: keyBytes, wait: true, waiter: id)
          } catch {
            store.giveUp(id, key: keyBytes)
            throw error
          }
        }
      }
    }
  }

  extension LeaseStore {
    /// A waiter gives its place back (and the lease, if it was served meanwhile): a release, sent as one.
    func giveUp(_ id: Int64, key: ByteBuffer) {
      enqueue([LeaseRelease(id: id, key: Array(key.readableBytesView), until: .now + leaseTimeout)])
    }
  }
#endif
