#if Postgres
  import RateLimit

  /// Runs `operation`, or throws ``DecisionTimedOut`` once `timeout` has passed, whichever comes first. When
  /// the deadline wins, the operation is cancelled (a statement still queued for a connection is never sent); a
  /// statement already sent may still run, and its booking is revoked (see ``Revocations``).
  func withDeadline<Value: Sendable>(
    _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    let race = LockedValue(Race<Value>())
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
      race.withLock { $0.continuation = continuation }
      let work = Task {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        Race.finish(race, with: result)
      }
      let timer = Task {
        do { try await Task.sleep(for: timeout) } catch { return }
        if Race.finish(race, with: .failure(DecisionTimedOut(timeout: timeout))) {
          race.withLock { $0.work }?.cancel()
        }
      }
      // The query may have won already: then nothing is left to cancel the timer but us.
      let isFinished = race.withLock { state in
        state.timer = timer
        state.work = work
        return state.isFinished
      }
      if isFinished { timer.cancel() }
    }
  }

  struct Race<Value: Sendable> {
    var continuation: CheckedContinuation<Value, any Error>?
    var timer: Task<Void, Never>?
    var work: Task<Void, Never>?
    var isFinished = false

    /// Resumes the caller with `result` if nobody has, and cancels the timer; returns whether this call did.
    @discardableResult
    static func finish(_ race: LockedValue<Race>, with result: Result<Value, any Error>) -> Bool {
      let (continuation, timer): (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) =
        race.withLock { state in
          if state.isFinished { return (nil, nil) }
          state.isFinished = true
          let continuation = state.continuation
          state.continuation = nil
          return (continuation, state.timer)
        }
      guard let continuation else { return false }
      continuation.resume(with: result)
      timer?.cancel()
      return true
    }
  }
#endif
