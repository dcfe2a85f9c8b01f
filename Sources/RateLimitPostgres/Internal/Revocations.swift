#if Postgres
  import Logging
  import PostgresNIO
  import RateLimit

  /// A booking this process gave up on (its decision timed out, or its connection was lost), to revoke once the
  /// database answers (``PostgresPermitStore/revocations``): one at a time, so that revoking never takes the
  /// pool from decisions (a key whose lock another session holds keeps its revocations waiting, not the other
  /// keys). A revocation that fails is tried again a second later, 600 times at most (ten minutes); at most
  /// 100,000 wait. Sending holds no reference to the limiter: a limiter released, or a client shut down, drops
  /// what is left, logged.
  struct Revocation: Sendable {
    var id: Int64
    var key: ByteBuffer
    var attempts = 0

    /// A store's queue of revocations.
    static func queue() -> BackgroundBatches<Revocation> { BackgroundBatches(batchSize: 1, capacity: 100_000) }
  }

  extension PostgresPermitStore {
    /// Revokes booking `id` (`ratelimit_revoke_v4`) in the background: see ``Revocation``.
    func revokeLater(_ id: Int64, key: ByteBuffer) {
      let sender = RevocationSender(self)
      revocations.add([Revocation(id: id, key: key)]) { batch in await sender.send(batch[0]) }
    }
  }

  /// Sends a store's revocations without keeping the store alive (it goes with its limiter); its name and
  /// logger, for the last word.
  private final class RevocationSender: Sendable {
    weak let store: PostgresPermitStore?
    let name: String
    let logger: Logger
    let deadlines: DeadlineTimer

    init(_ store: PostgresPermitStore) {
      (self.store, name, logger, deadlines) = (store, store.name, store.logger, store.deadlines)
    }

    /// One revocation, within the limiter's `timeout` (a server that stopped answering never holds the task).
    func send(_ next: Revocation) async -> BackgroundBatches<Revocation>.Outcome {
      guard
        let (client, statement, timeout) = store.map({
          ($0.client, $0.revokeStatement(next.id, key: next.key), $0.timeout)
        })
      else { return dropAll(reason: "the limiter was released") }
      do {
        try await withDeadline(timeout, on: deadlines) {
          for try await _ in try await client.execute(statement) {}
        }
        return .sent
      } catch {
        if isClientGone(error) { return dropAll(reason: "the client was shut down") }
        var again = next
        again.attempts += 1
        if again.attempts < 600 { return .failed(putBack: [again], pause: .seconds(1)) }
        logger.debug(
          "rate limit: a revocation given up after 600 attempts",
          metadata: ["ratelimit.name": "\(name)", "error": "\(error)"])
        return .failed(putBack: [], pause: .seconds(1))
      }
    }

    private func dropAll(reason: String) -> BackgroundBatches<Revocation>.Outcome {
      .stop { [name, logger] dropped in
        logger.debug(
          "rate limit: revocations dropped: \(reason)",
          metadata: ["ratelimit.name": "\(name)", "ratelimit.revocations": "\(dropped)"])
      }
    }
  }
#endif
