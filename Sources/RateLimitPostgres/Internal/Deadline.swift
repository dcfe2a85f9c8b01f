#if Postgres
  @_spi(RateLimitIntegration) import RateLimit

  /// Runs `operation` in a task of its own and returns its result, or throws ``DecisionTimedOut`` once `timeout`
  /// has passed, whichever comes first; the loser is cancelled and never awaited, so nothing waits longer than
  /// `timeout`. The task is not the caller's: a cancelled caller's request (giving a booking back from a cancelled
  /// `acquire`) still reaches the database, where a query started from a cancelled task would be cancelled too.
  func withDeadline<Value: Sendable>(
    _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    let race = _Locked(Race<Value>())
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
      race.withLock { $0.continuation = continuation }
      let work = Task {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        Race.finish(race, with: result)
      }
      let timer = Task {
        do { try await Task.sleep(for: timeout) } catch { return }
        Race.finish(race, with: .failure(DecisionTimedOut(timeout: timeout)))
      }
      // The query may have won already: then nothing is left to cancel it but us.
      let isFinished = race.withLock { state in
        state.losers = [work, timer]
        return state.isFinished
      }
      if isFinished { timer.cancel() }
    }
  }

  /// Whichever of the query and the timer finishes first resumes the caller, and cancels the other.
  struct Race<Value: Sendable> {
    var continuation: CheckedContinuation<Value, any Error>?
    var losers: [Task<Void, Never>] = []
    var isFinished = false

    static func finish(_ race: _Locked<Race>, with result: Result<Value, any Error>) {
      let (continuation, tasks): (CheckedContinuation<Value, any Error>?, [Task<Void, Never>]) = race.withLock {
        state in
        if state.isFinished { return (nil, []) }
        state.isFinished = true
        let continuation = state.continuation
        state.continuation = nil
        return (continuation, state.losers)
      }
      continuation?.resume(with: result)
      for task in tasks { task.cancel() }
    }
  }
#endif
