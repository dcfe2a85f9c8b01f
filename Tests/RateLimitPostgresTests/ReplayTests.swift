#if Postgres
  import PostgresNIO
  import RateLimit
  @testable import RateLimitPostgres
  import RateLimitStoreKit
  import Testing

  /// SPEC 4.0, "the same rules": random single-key timelines replayed against `PostgresRateLimiter(.clock)` and
  /// `KeyedRateLimiter` on one `ManualClock`, which must agree exactly: grants, booking instants to the
  /// nanosecond, delays, `nil`s. Awkward windows (333 ns, 7 ms) and ordinary ones.
  @Suite(.serialized) struct ReplayTests {
    enum Step {
      case advance(Int64)  // ns
      case tryAcquire(Int)
      case reserve(Int, within: Int64?)  // ns
      case retryAfter(Int)
      case cancel(Int)  // a reservation, counted back from the latest
      case peek(Int)
      case charge(Int)
      case refund(Int)
      case block(Int64)  // ns
      case penalise(Int, Int64)  // permits, ns: a middleware's penalised decision
    }

    /// Plays one step on both limiters and expects the same answers; `reservations` holds both sides' bookings
    /// for `.cancel` (a cancelled one stays: cancelling it again changes nothing on either side).
    static func play(
      _ step: Step, on shared: PostgresRateLimiter, and local: KeyedRateLimiter<String>, clock: ManualClock,
      reservations: inout [(PostgresRateLimiter.Reservation, RateLimiter.Reservation)], context: String
    ) async throws {
      let key = "k"
      switch step {
      case .advance(let nanoseconds):
        clock.advance(by: .nanoseconds(nanoseconds))
      case .tryAcquire(let permits):
        let expected = local.tryAcquire(permits, for: key)
        #expect(try await shared.tryAcquire(permits, for: key) == expected, "\(context)")
      case .reserve(let permits, let within):
        let maxDelay = within.map(Duration.nanoseconds)
        let expected = local.reserve(permits, for: key, within: maxDelay)
        let got = try await shared.reserve(permits, for: key, within: maxDelay)
        #expect(got?.time == expected?.time, "\(context)")
        #expect(got?.delay == expected?.delay, "\(context)")
        if let got, let expected { reservations.append((got, expected)) }
      case .retryAfter(let permits):
        let expected = local.retryAfter(permits, for: key)
        #expect(try await shared.retryAfter(permits, for: key) == expected, "\(context)")
      case .cancel(let back):
        guard back < reservations.count else { return }
        let (got, expected) = reservations[reservations.count - 1 - back]
        expected.cancel()
        try await got.cancel()
      case .peek(let permits):
        #expect(try await shared.peek(permits, for: key) == local.peek(permits, for: key), "\(context)")
      case .charge(let permits):
        #expect(try await shared.charge(permits, for: key) == local.charge(permits, for: key), "\(context)")
      case .refund(let permits):
        #expect(try await shared.refund(permits, for: key) == local.refund(permits, for: key), "\(context)")
      case .block(let nanoseconds):
        local.block(key, for: .nanoseconds(nanoseconds))
        try await shared.block(key, for: .nanoseconds(nanoseconds))
      case .penalise(let permits, let nanoseconds):
        let expected = local.decidePenalising(permits, for: key, penalty: .nanoseconds(nanoseconds)).decision
        let got = try await shared.decidePenalising(permits, for: key, penalty: .nanoseconds(nanoseconds)).decision
        #expect(got == expected, "\(context)")
      }
    }

    static let windows: [Duration] = [.nanoseconds(333), .milliseconds(7), .seconds(1)]

    static func timeline(
      _ generator: inout some RandomNumberGenerator, capacity: Int, window: Int64, cancels: Bool
    ) -> [Step] {
      (0..<30).map { _ in
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<3: .advance(Int64.random(in: 0...window * 3 / 4, using: &generator))
        case 3..<5: .tryAcquire(Int.random(in: 1...capacity + 1, using: &generator))
        case 5..<8:
          .reserve(
            Int.random(in: 1...capacity + 1, using: &generator),
            within: Bool.random(using: &generator) ? nil : Int64.random(in: 0...window * 2, using: &generator))
        case 8: .retryAfter(Int.random(in: 1...capacity, using: &generator))
        default: cancels ? .cancel(Int.random(in: 0..<3, using: &generator)) : .retryAfter(1)
        }
      }
    }

    @Test(arguments: [false, true]) func bothLimitersGiveTheSameAnswers(bucket: Bool) async throws {
      let seed = UInt64.random(in: 0...UInt64.max)
      _ = try await TestDatabase.withClient { client in
        var generator = SeededGenerator(seed: seed)
        for window in Self.windows {
          for _ in 0..<12 {
            let limit = Int.random(in: 1...4, using: &generator)
            let burst = Int.random(in: 1...4, using: &generator)
            let clock = ManualClock()
            let name = TestDatabase.uniqueName()
            let shared =
              bucket
              ? PostgresRateLimiter(
                client: client, name: name, limit: limit, per: window, burst: burst, time: .clock(clock),
                timeout: TestDatabase.timeout)
              : PostgresRateLimiter(
                client: client, name: name, limit: limit, per: window, time: .clock(clock),
                timeout: TestDatabase.timeout)
            try await shared.prepare()
            let local =
              bucket
              ? KeyedRateLimiter<String>(limit: limit, per: window, burst: burst, clock: clock)
              : KeyedRateLimiter<String>(limit: limit, per: window, clock: clock)
            // A token bucket's cancel is the one rule that differs (SPEC): replayed for windows only.
            let steps = Self.timeline(
              &generator, capacity: bucket ? burst : limit, window: window.nanoseconds, cancels: !bucket)
            var reservations: [(PostgresRateLimiter.Reservation, RateLimiter.Reservation)] = []
            for (index, step) in steps.enumerated() {
              try await Self.play(
                step, on: shared, and: local, clock: clock, reservations: &reservations,
                context: "seed \(seed), window \(window), step \(index): \(step)")
            }
            #expect(try await shared.count() == local.count, "seed \(seed), window \(window): count")
          }
        }
      }
    }
  }

  extension Duration {
    /// Whole nanoseconds (these windows fit).
    var nanoseconds: Int64 {
      let (seconds, attoseconds) = components
      return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
  }
#endif
