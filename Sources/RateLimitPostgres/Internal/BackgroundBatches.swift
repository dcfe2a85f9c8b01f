#if Postgres
  import RateLimit

  /// What a limiter sends the database in the background, never on a caller's path: its leases' releases, and
  /// the revocations of statements its callers gave up on. Items wait in arrival order; one task at a time
  /// sends them (none while none waits), a batch a statement. A batch that fails waits again at the end of the
  /// queue, after a pause; one whose sender is gone (its limiter, its client) drops the queue.
  ///
  /// ```
  /// add(a)        a task starts: sends [a]
  /// add(b, c)     queued behind the batch in flight
  /// [a] sent      the task sends [b, c]
  /// [b, c] fails  put back, a pause, sent again
  /// (none left)   the task ends
  /// ```
  ///
  /// A statement that must reach the database after the batch in flight (a lease decision, after the releases
  /// sent before it) takes what is queued with ``takeBeforeStatement()``, once that batch is done, and carries it.
  final class BackgroundBatches<Item: Sendable>: Sendable {
    /// What sending a batch came to.
    enum Outcome: Sendable {
      /// Sent, or nothing in it was still worth sending.
      case sent
      /// Not sent: `putBack` waits again at the end of the queue, sent after `pause`.
      case failed(putBack: [Item], pause: Duration)
      /// Nothing more can be sent: the queue is dropped, and `dropped` told how many items were (this batch's
      /// included).
      case stop(dropped: @Sendable (Int) -> Void)
    }

    private struct State {
      var items: [Item] = []
      var isSending = false
      /// Whether a batch is in flight: ``takeBeforeStatement()`` waits for it.
      var inFlight = false
      var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())
    private let batchSize: Int
    private let capacity: Int

    /// At most `batchSize` items a statement; at most `capacity` wait (more are dropped: an outage long and busy
    /// enough to queue them is reported by the limiter's answers).
    init(batchSize: Int = .max, capacity: Int = .max) {
      (self.batchSize, self.capacity) = (batchSize, capacity)
    }

    /// Whether nothing waits and no task sends (for tests).
    var isIdle: Bool { state.withLock { $0.items.isEmpty && !$0.isSending } }

    /// Queues `items` and, unless a task sends already, starts one that sends them a batch at a time with `send`.
    func add(_ items: [Item], send: @escaping @Sendable ([Item]) async -> Outcome) {
      let start = state.withLock { state -> Bool in
        state.items.append(contentsOf: items.prefix(max(0, capacity - state.items.count)))
        if state.isSending { return false }
        state.isSending = true
        return true
      }
      if start { Task { await drain(send) } }
    }

    private func drain(_ send: @Sendable ([Item]) async -> Outcome) async {
      while true {
        let batch = state.withLock { state -> [Item] in
          let batch = Array(state.items.prefix(batchSize))
          state.items.removeFirst(batch.count)
          if batch.isEmpty { state.isSending = false } else { state.inFlight = true }
          return batch
        }
        if batch.isEmpty { return }
        let outcome = await send(batch)
        let (waiting, dropped) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Int) in
          var dropped = 0
          switch outcome {
          case .sent: break
          case .failed(let putBack, _): state.items.append(contentsOf: putBack)
          case .stop:
            dropped = state.items.count + batch.count
            (state.items, state.isSending) = ([], false)
          }
          state.inFlight = false
          defer { state.waiting = [] }
          return (state.waiting, dropped)
        }
        for continuation in waiting { continuation.resume() }
        switch outcome {
        case .sent: continue
        case .failed(_, let pause): try? await Task.sleep(for: pause)
        case .stop(let report):
          report(dropped)
          return
        }
      }
    }

    /// What is queued, taken once no batch is in flight, for a statement to carry. Checked again after each
    /// wait, in the same lock as the taking: the sending task, woken with the waiters, may have taken the queue
    /// and sent it first, and a statement sent beside that batch could run before it.
    func takeBeforeStatement() async -> [Item] {
      while true {
        let ready = state.withLock { state -> [Item]? in
          if state.inFlight { return nil }
          defer { state.items = [] }
          return state.items
        }
        if let ready { return ready }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          let now = state.withLock { state -> Bool in
            if !state.inFlight { return true }
            state.waiting.append(continuation)
            return false
          }
          if now { continuation.resume() }
        }
      }
    }
  }
#endif
