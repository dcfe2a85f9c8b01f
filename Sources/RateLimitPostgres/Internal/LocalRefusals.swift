#if Postgres
  @_spi(RateLimitIntegration) import RateLimit

  /// A refused key answered locally: once the database says a key cannot grant even one permit before an
  /// instant X, this process refuses that key until X without a round trip (unless it cancels a booking of the
  /// key meanwhile). Instants are on the limiter's local clock (`c` with `.clock(c)`, a `ContinuousClock`
  /// otherwise), taken when the decision was *sent*, so a local refusal never outlasts the database's.
  ///
  /// Bounded: at most ``capacity`` keys; a full table first forgets the refusals that have passed, and refuses
  /// no new key locally if none has.
  final class LocalRefusals: Sendable {
    struct Refusal {
      /// When one permit can be granted again.
      var until: Duration
      /// When the key is at rest.
      var restAt: Duration
    }

    static let capacity = 65_536

    private let refusals = _Locked([String: Refusal]())

    /// The refusal in force for `key` at `now`, if any.
    func refusal(for key: String, at now: Duration) -> Refusal? {
      refusals.withLock { refusals in
        guard let refusal = refusals[key] else { return nil }
        if now < refusal.until { return refusal }
        refusals[key] = nil
        return nil
      }
    }

    /// Remembers that `key` grants no permit before `until`.
    func refuse(_ key: String, until: Duration, restAt: Duration, now: Duration) {
      guard now < until else { return }
      refusals.withLock { refusals in
        if refusals.count >= Self.capacity {
          refusals = refusals.filter { now < $0.value.until }
          if refusals.count >= Self.capacity { return }
        }
        refusals[key] = Refusal(until: until, restAt: restAt)
      }
    }

    /// This process cancelled a booking of `key`: ask the database again.
    func forget(_ key: String) {
      _ = refusals.withLock { $0.removeValue(forKey: key) }
    }
  }
#endif
