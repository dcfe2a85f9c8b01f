#if Postgres
  import Logging
  import PostgresNIO
  import RateLimit

  /// Bookings this process gave up on (their decision timed out, or its connection was lost), to revoke once the
  /// database answers: one at a time, on at most one connection, so that revoking never takes the pool from
  /// decisions (a key whose lock another session holds keeps its revocations waiting, not the other keys).
  /// A revocation that fails is tried again a second later, for up to ten minutes.
  final class Revocations: Sendable {
    private struct Pending {
      var id: Int64
      var key: ByteBuffer
      var attempts = 0
    }

    private struct State {
      var pending: [Pending] = []
      var isDraining = false
    }

    /// At most this many wait; more are dropped (an outage long and busy enough to queue them is reported by
    /// the policy's answers, and what they booked leaves with the window).
    static let capacity = 100_000

    private let state = LockedValue(State())
    /// Each revocation's deadline.
    private let deadlines = DeadlineTimer()

    /// Whether none is waiting or being revoked (for tests).
    var isIdle: Bool { state.withLock { $0.pending.isEmpty && !$0.isDraining } }

    func add(_ id: Int64, key: ByteBuffer, store: PostgresPermitStore) {
      let start: Bool = state.withLock { state in
        if state.pending.count < Self.capacity { state.pending.append(Pending(id: id, key: key)) }
        if state.isDraining { return false }
        state.isDraining = true
        return true
      }
      if start {
        let owner = WeakStore(store)
        Task { await drain(owner) }
      }
    }

    /// Sends the revocations, oldest first, while the limiter lives and its client runs: the task never
    /// outlives either (a limiter released, or a client shut down, drops what is left, logged).
    private func drain(_ owner: WeakStore) async {
      var pause = false
      while let next = state.withLock({ state -> Pending? in
        if state.pending.isEmpty {
          state.isDraining = false
          return nil
        }
        return state.pending.removeFirst()
      }) {
        // After a failure, a second's pause, holding no reference to the limiter.
        if pause { try? await Task.sleep(for: .seconds(1)) }
        guard
          let (client, statement, timeout) = owner.store.map({
            ($0.client, $0.revokeStatement(next.id, key: next.key), $0.timeout)
          })
        else {
          dropAll(next, owner, reason: "the limiter was released")
          return
        }
        switch await send(next, statement, on: client, within: timeout, owner) {
        case .done: pause = false
        case .retry: pause = true
        case .clientGone:
          dropAll(next, owner, reason: "the client was shut down")
          return
        }
      }
    }

    private enum Sent {
      case done, retry, clientGone
    }

    /// One revocation, within the limiter's `timeout` (a server that stopped answering never holds the task);
    /// a failure puts it back at the end of the queue (600 attempts at most, then logged). It holds no reference
    /// to the limiter, so that releasing the limiter frees it.
    private func send(
      _ next: Pending, _ statement: RevokeStatement, on client: PostgresClient, within timeout: Duration,
      _ owner: WeakStore
    ) async -> Sent {
      do {
        try await withDeadline(timeout, on: deadlines) {
          for try await _ in try await client.execute(statement) {}
        }
        return .done
      } catch {
        if isClientGone(error) {
          return .clientGone
        }
        var again = next
        again.attempts += 1
        if again.attempts < 600 {
          state.withLock { $0.pending.append(again) }
        } else {
          owner.logger.debug(
            "rate limit: a revocation given up after 600 attempts",
            metadata: ["ratelimit.name": "\(owner.name)", "error": "\(error)"])
        }
        return .retry
      }
    }

    /// Gives up `next` and every revocation pending, and stops draining.
    private func dropAll(_ next: Pending, _ owner: WeakStore, reason: String) {
      let dropped = state.withLock { state in
        defer { (state.pending, state.isDraining) = ([], false) }
        return state.pending.count + 1
      }
      owner.logger.debug(
        "rate limit: revocations dropped: \(reason)",
        metadata: ["ratelimit.name": "\(owner.name)", "ratelimit.revocations": "\(dropped)"])
    }
  }

  /// The limiter's store, not kept alive by its revocations' task (it goes with its limiter); its name and logger,
  /// for the task's last word.
  private final class WeakStore: Sendable {
    weak let store: PostgresPermitStore?
    let name: String
    let logger: Logger
    init(_ store: PostgresPermitStore) { (self.store, name, logger) = (store, store.name, store.logger) }
  }
#endif
