#if Postgres
  @_spi(RateLimitIntegration) import RateLimit

  /// Runs `operation`, or throws ``DecisionTimedOut`` once `timeout` has passed, whichever comes first. When
  /// the deadline wins, the operation is cancelled, and an answer that still comes goes to `late`, so that a
  /// grant nobody received can be taken back (no phantom booking).
  func withDeadline<Value: Sendable>(
    _ timeout: Duration, late: (@Sendable (Value) -> Void)? = nil,
    _ operation: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    let race = _Locked(Race<Value>())
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
      race.withLock { $0.continuation = continuation }
      let work = Task {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        if !Race.finish(race, with: result), case .success(let value) = result {
          late?(value)
        }
      }
      let timer = Task {
        do { try await Task.sleep(for: timeout) } catch { return }
        if Race.finish(race, with: .failure(DecisionTimedOut(timeout: timeout))) {
          // The statement is cancelled (PostgresNIO gives its connection back); an answer that still comes
          // goes to `late`.
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
    static func finish(_ race: _Locked<Race>, with result: Result<Value, any Error>) -> Bool {
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
