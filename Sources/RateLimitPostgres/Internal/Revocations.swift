#if Postgres
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

    /// Whether none is waiting or being revoked (for tests).
    var isIdle: Bool { state.withLock { $0.pending.isEmpty && !$0.isDraining } }

    func add(_ id: Int64, key: ByteBuffer, limiter: PostgresRateLimiter) {
      let start: Bool = state.withLock { state in
        if state.pending.count < Self.capacity { state.pending.append(Pending(id: id, key: key)) }
        if state.isDraining { return false }
        state.isDraining = true
        return true
      }
      if start { Task { await drain(limiter) } }
    }

    private func drain(_ limiter: PostgresRateLimiter) async {
      while let next = state.withLock({ state -> Pending? in
        if state.pending.isEmpty {
          state.isDraining = false
          return nil
        }
        return state.pending.removeFirst()
      }) {
        do {
          for try await _ in try await limiter.client.query(limiter.revokeStatement(next.id, key: next.key)) {}
        } catch {
          var again = next
          again.attempts += 1
          if again.attempts < 600 { state.withLock { $0.pending.append(again) } }
          try? await Task.sleep(for: .seconds(1))
        }
      }
    }
  }
#endif
