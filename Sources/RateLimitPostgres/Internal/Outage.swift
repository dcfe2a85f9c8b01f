#if Postgres
  import RateLimit

  /// Outages cost little: after a failure that means "the database is away" (refused, lost, timed out), every
  /// decision goes straight to the `WhenUnavailable` policy for a short back-off, without a round trip; when it
  /// ends, the next decision probes the database (and the rest keep going to the policy while it does). Each
  /// failed probe doubles the back-off, from 50 ms up to 1 s, so decisions return to the database within about a
  /// second of its recovery.
  ///
  /// A connection refused or lost starts the back-off at once; a decision that timed out starts it only when
  /// another key's decision timed out too within a second: one blocked key (its lock held elsewhere) times
  /// out alone and must not send every other key to the policy.
  ///
  /// ```
  /// fail, 50 ms policy, probe fails, 100 ms policy, … 1 s policy,
  /// probe answers: back to the database
  /// ```
  final class Outage: Sendable {
    private struct State {
      var until: ContinuousClock.Instant?
      var backOff: Duration = .zero
      var probing = false
      var lastError: (any Error)?
      /// The key and instant of the latest decision that timed out (`nil` key: not a decision).
      var lastTimeout: (key: String?, at: ContinuousClock.Instant)?
    }

    static let shortest = Duration.milliseconds(50)
    static let longest = Duration.seconds(1)

    private let state = LockedValue(State())

    /// The error to answer with instead of a round trip, or `nil` to go to the database (at most one probe at a
    /// time once the back-off has passed).
    func shortcut(now: ContinuousClock.Instant) -> (any Error)? {
      state.withLock { state in
        guard let until = state.until else { return nil }
        if now < until || state.probing { return state.lastError ?? DecisionTimedOut(timeout: .zero) }
        state.probing = true
        return nil
      }
    }

    /// Whether decisions at `now` go to the policy without a round trip (the back-off has not passed).
    func isBackingOff(now: ContinuousClock.Instant) -> Bool {
      state.withLock { state in state.until.map { now < $0 } ?? false }
    }

    /// Returns whether this failure started an outage (the limiter logs it).
    @discardableResult
    func failed(_ error: any Error, key: String?, now: ContinuousClock.Instant) -> Bool {
      state.withLock { state in
        if error is DecisionTimedOut, !state.probing {
          defer { state.lastTimeout = (key, now) }
          guard let last = state.lastTimeout, now - last.at < .seconds(1), key == nil || last.key != key else {
            return false
          }
        }
        let started = state.until == nil
        state.backOff = min(max(state.backOff * 2, Self.shortest), Self.longest)
        state.until = now + state.backOff
        state.probing = false
        state.lastError = error
        return started
      }
    }

    /// Ends the outage, if one was in force: returns its latest error (the limiter logs it), or `nil` if there
    /// was none.
    @discardableResult
    func succeeded() -> (any Error)? {
      state.withLock { state in
        guard state.until != nil else { return nil }
        defer { state = State() }
        return state.lastError ?? DecisionTimedOut(timeout: .zero)
      }
    }
  }
#endif
