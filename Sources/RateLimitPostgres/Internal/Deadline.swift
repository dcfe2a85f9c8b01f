#if Postgres
  import RateLimit

  /// Runs `operation`, or throws ``DecisionTimedOut`` once `timeout` has passed since `start`, whichever comes first; the
  /// deadline is an entry of `timer` (one timer a limiter, not a task a decision). When the deadline wins, the
  /// operation is cancelled (a statement still queued for a connection is never sent); a statement already sent
  /// may still run, and its booking is revoked (see ``Revocation``).
  func withDeadline<Value: Sendable>(
    _ timeout: Duration, from start: ContinuousClock.Instant = .now, on timer: DeadlineTimer,
    _ operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    let race = LockedValue(Race<Value>())
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
      race.withLock { $0.continuation = continuation }
      let work = Task {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        Race.finish(race, with: result)
      }
      let deadline = timer.schedule(at: start + timeout) {
        if Race.finish(race, with: .failure(DecisionTimedOut(timeout: timeout))) {
          race.withLock { $0.work }?.cancel()
        }
      }
      // The query may have won already: then nothing is left to remove the deadline but us.
      let isFinished = race.withLock { state in
        state.deadline = (timer, deadline)
        state.work = work
        return state.isFinished
      }
      if isFinished { timer.cancel(deadline) }
    }
  }

  struct Race<Value: Sendable> {
    var continuation: CheckedContinuation<Value, any Error>?
    var deadline: (timer: DeadlineTimer, id: UInt64)?
    var work: Task<Void, Never>?
    var isFinished = false

    /// Resumes the caller with `result` if nobody has, and removes the deadline; returns whether this call did.
    @discardableResult
    static func finish(_ race: LockedValue<Race>, with result: Result<Value, any Error>) -> Bool {
      let (continuation, deadline): (CheckedContinuation<Value, any Error>?, (timer: DeadlineTimer, id: UInt64)?) =
        race.withLock { state in
          if state.isFinished { return (nil, nil) }
          state.isFinished = true
          let continuation = state.continuation
          state.continuation = nil
          return (continuation, state.deadline)
        }
      guard let continuation else { return false }
      continuation.resume(with: result)
      if let deadline { deadline.timer.cancel(deadline.id) }
      return true
    }
  }
#endif
