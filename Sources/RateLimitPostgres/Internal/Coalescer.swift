#if Postgres
  import PostgresNIO
  import RateLimit

  /// Concurrent decisions of one limiter share round trips. A decision that finds none of the limiter's
  /// statements in flight is sent at once, alone (no added latency when idle); those that arrive meanwhile
  /// queue, in arrival order, and go together in the next statement (`ratelimit_decide_many_v7`), which decides
  /// them one by one in that order. Each keeps its own deadline: a queued decision whose deadline passes leaves
  /// the queue (never sent), or, once sent, is answered "unavailable" and its booking revoked, as a lone one.
  ///
  /// ```
  /// a ──statement(a)────────┐
  ///   b c d (queue)         └─statement(b c d)──┐
  ///                  e f (queue)                └─statement(e f)─ …
  /// ```
  final class Coalescer: Sendable {
    /// The most decisions one statement carries; the rest wait for the next.
    static let largestBatch = 256

    private struct State {
      var isSending = false
      var queue: [PendingDecision] = []
      /// Decisions that arrived, and statements sent for them: what tests count.
      var arrivals = 0
      var statements = 0
      /// Tests waiting for the arrivals to reach a number.
      var arrivalWaiters: [(count: Int, id: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedValue(State())

    /// Whether the caller sends its decision now (nothing was in flight: it is now); otherwise `pending` queued.
    func sendsAtOnce(orQueue pending: @autoclosure () -> PendingDecision) -> Bool {
      let (atOnce, arrived) = state.withLock { state in
        state.arrivals += 1
        let arrived = Self.takeWaiters(from: &state)
        if !state.isSending {
          state.isSending = true
          state.statements += 1
          return (true, arrived)
        }
        state.queue.append(pending())
        return (false, arrived)
      }
      arrived.forEach { $0.resume() }
      return atOnce
    }

    /// A batch is sent (one statement).
    func countStatement() {
      state.withLock { $0.statements += 1 }
    }

    /// How many decisions arrived, and how many statements were sent for them.
    var counts: (arrivals: Int, statements: Int) {
      state.withLock { ($0.arrivals, $0.statements) }
    }

    /// Returns once `count` decisions have arrived (sent or queued), or once the caller is cancelled: tests start
    /// decisions in a known order, and bound the wait.
    func waitUntilArrivals(_ count: Int) async {
      let id = UInt64.random(in: 0...UInt64.max)
      await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          let now: Bool = state.withLock { state in
            if state.arrivals >= count || Task.isCancelled { return true }
            state.arrivalWaiters.append((count, id, continuation))
            return false
          }
          if now { continuation.resume() }
        }
      } onCancel: {
        let cancelled = state.withLock { state in
          let found = state.arrivalWaiters.first { $0.id == id }?.continuation
          state.arrivalWaiters.removeAll { $0.id == id }
          return found
        }
        cancelled?.resume()
      }
    }

    private static func takeWaiters(from state: inout State) -> [CheckedContinuation<Void, Never>] {
      if state.arrivalWaiters.isEmpty { return [] }
      let arrivals = state.arrivals
      let ready = state.arrivalWaiters.filter { $0.count <= arrivals }.map(\.continuation)
      state.arrivalWaiters.removeAll { $0.count <= arrivals }
      return ready
    }

    /// The statement in flight has ended: the next batch to send (in arrival order), or `nil` when nothing is
    /// queued (and then nothing is in flight).
    func nextBatch() -> [PendingDecision]? {
      state.withLock { state in
        if state.queue.isEmpty {
          state.isSending = false
          return nil
        }
        let count = min(state.queue.count, Self.largestBatch)
        let batch = Array(state.queue.prefix(count))
        state.queue.removeFirst(count)
        return batch
      }
    }
  }

  /// One decision as a statement asks it.
  struct DecisionRequest: Sendable {
    var mode: PostgresRateLimiter.Mode
    var permits: Int64
    var key: ByteBuffer
    var maxDelay: Int64?
    var bookingID: Int64?
    /// `localClock`'s reading at the door (when the decision sweeps, ``PostgresPermitStore/sweepIfDue(at:)``);
    /// `nil` for a give-back, which never sweeps.
    var localNow: Duration? = nil
  }

  /// A decision's answer as the database gives it.
  typealias DecisionRow = (
    time: Int64, now: Int64, id: Int64?, booked: Bool, swept: Int32, remaining: Int64, restAt: Int64,
    effective: Int64
  )

  /// A queued decision: its request, its deadline, and where its caller waits.
  struct PendingDecision: Sendable {
    var request: DecisionRequest
    var deadline: ContinuousClock.Instant
    var slot: DecisionSlot
  }

  /// Where a queued decision's caller waits: answered once, by its batch or by its deadline (an entry of the
  /// limiter's ``DeadlineTimer``), whichever first.
  final class DecisionSlot: Sendable {
    private struct State {
      var continuation: CheckedContinuation<DecisionRow, any Error>?
      var result: Result<DecisionRow, any Error>?
      var isSent = false
      var deadline: (timer: DeadlineTimer, id: UInt64)?
    }

    private let state = LockedValue(State())

    /// Waits for the answer, or until `deadline`: then "unavailable" (`wasSent` if its batch was sent).
    func wait(until deadline: ContinuousClock.Instant, timeout: Duration, on timer: DeadlineTimer) async throws
      -> DecisionRow
    {
      try await withCheckedThrowingContinuation { continuation in
        let id = timer.schedule(at: deadline) { [self] in
          finish { isSent in
            .failure(
              PostgresRateLimiter.Unavailable(
                error: .unavailable(underlying: DecisionTimedOut(timeout: timeout)), wasSent: isSent))
          }
        }
        let early: Result<DecisionRow, any Error>? = state.withLock { state in
          if let result = state.result { return result }
          state.continuation = continuation
          state.deadline = (timer, id)
          return nil
        }
        if let early {
          timer.cancel(id)
          continuation.resume(with: early)
        }
      }
    }

    /// Marks the decision sent; `false` if its caller has its answer already (it timed out): leave it out.
    func markSent() -> Bool {
      state.withLock { state in
        if state.result != nil { return false }
        state.isSent = true
        return true
      }
    }

    /// Answers the caller, unless it has its answer already.
    func finish(_ result: Result<DecisionRow, any Error>) {
      finish { _ in result }
    }

    /// Answers the caller with the result made of whether the decision was sent, read under the same lock that
    /// answers it: a batch that sends it after this answer leaves it out (``markSent()``), and one that sent it
    /// before is known to have (4.3.1: the deadline read "not sent", a batch sent it, and its booking was never
    /// revoked).
    private func finish(_ result: (_ isSent: Bool) -> Result<DecisionRow, any Error>) {
      let (continuation, deadline, answer):
        (
          CheckedContinuation<DecisionRow, any Error>?, (timer: DeadlineTimer, id: UInt64)?,
          Result<DecisionRow, any Error>?
        ) =
          state.withLock { state in
            if state.result != nil { return (nil, nil, nil) }
            let answer = result(state.isSent)
            state.result = answer
            defer { (state.continuation, state.deadline) = (nil, nil) }
            return (state.continuation, state.deadline, answer)
          }
      if let deadline { deadline.timer.cancel(deadline.id) }
      if let answer { continuation?.resume(with: answer) }
    }
  }

  /// A batch's decision on a key whose lock another session held past `lock_timeout`: as a lone decision's
  /// 55P03, unavailable for that key only.
  struct KeyLockHeld: Error, CustomStringConvertible {
    var description: String { "the key's lock is held by another session (lock_timeout)" }
  }
#endif
