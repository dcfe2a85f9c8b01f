#if Postgres
  import PostgresNIO
  import RateLimit

  /// A statement a `PostgresConcurrencyLimiter` gave up on (its `timeout` passed, or the connection was lost,
  /// after sending): it may still run and grant a lease, or take a place in the line, that nobody holds. It is
  /// revoked by the token it carried (`ratelimit_lease_revoke_v1`), whichever of the two the database runs
  /// first, in the background (``LeaseStore/revocations``): a batch a statement, tried again every 50 ms until
  /// `leaseTimeout` has passed (by then such a lease, never renewed, has expired anyway), or until the client
  /// is shut down.
  struct LeaseRevocation: Sendable {
    var key: ByteBuffer
    var token: Int64
    var until: ContinuousClock.Instant
  }

  extension LeaseStore {
    /// Revokes the statement that carried `token` on `key`, in the background.
    func revoke(_ token: Int64, key: ByteBuffer) {
      revocations.add([LeaseRevocation(key: key, token: token, until: .now + leaseTimeout)]) { [self] batch in
        let now = ContinuousClock.now
        let live = batch.filter { $0.until > now }
        if live.isEmpty { return .sent }
        let statement = LeaseRevokeStatement(
          name: nameBytes, keys: live.map(\.key), tokens: live.map(\.token), ttl: ttl, lockTimeout: lockTimeout)
        do {
          _ = try await run(within: timeout) { client in
            for try await _ in try await client.execute(statement) {}
            return true
          }
          return .sent
        } catch {
          return isClientGone(error) ? .stop { _ in } : .failed(putBack: live, pause: .milliseconds(50))
        }
      }
    }
  }
#endif
