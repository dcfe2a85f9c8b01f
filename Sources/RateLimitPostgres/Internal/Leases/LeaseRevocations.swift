#if Postgres
  import PostgresNIO
  import RateLimit

  /// The statements a `PostgresConcurrencyLimiter` gave up on (its `timeout` passed, or the connection was lost,
  /// after sending): each may still run and grant a lease, or take a place in the line, that nobody holds. They
  /// are revoked by the token each carried (`ratelimit_lease_revoke_v1`), whichever of the two the database runs
  /// first, in the background: a batch a statement, tried again every 50 ms until `leaseTimeout` has passed (by
  /// then such a lease, never renewed, has expired anyway), or until the client is shut down.
  struct LeaseRevocations {
    struct Item {
      var key: ByteBuffer
      var token: Int64
      var until: ContinuousClock.Instant
    }

    var items: [Item] = []
    /// Whether a task sends them (it ends when none is left).
    var isSending = false
  }

  extension LeaseStore {
    /// Revokes the statement that carried `token` on `key`, in the background.
    func revoke(_ token: Int64, key: ByteBuffer) {
      let item = LeaseRevocations.Item(key: key, token: token, until: .now + leaseTimeout)
      let start = revocations.withLock { state -> Bool in
        state.items.append(item)
        if state.isSending { return false }
        state.isSending = true
        return true
      }
      if start { Task { await sendRevocations() } }
    }

    private func sendRevocations() async {
      while true {
        let batch = revocations.withLock { state -> [LeaseRevocations.Item] in
          let now = ContinuousClock.now
          defer { state.items = [] }
          let batch = state.items.filter { $0.until > now }
          if batch.isEmpty { state.isSending = false }
          return batch
        }
        if batch.isEmpty { return }
        let statement = LeaseRevokeStatement(
          name: nameBytes, keys: batch.map(\.key), tokens: batch.map(\.token), ttl: ttl, lockTimeout: lockTimeout)
        do {
          _ = try await run(within: timeout) { client in
            for try await _ in try await client.execute(statement) {}
            return true
          }
        } catch {
          if isClientGone(error) {
            revocations.withLock { ($0.items, $0.isSending) = ([], false) }
            return
          }
          revocations.withLock { $0.items.insert(contentsOf: batch, at: 0) }
          try? await Task.sleep(for: .milliseconds(50))
        }
      }
    }
  }
#endif
