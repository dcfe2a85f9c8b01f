#if Postgres
  import PostgresNIO
  import RateLimit
  import RateLimitPostgres
  import RateLimitStoreKit
  import Testing

  /// SPEC 4.0.1, "waiters included", for `PostgresRateLimiter` with `.clock(c)`: a clock that steps back moves
  /// this process's waiting `acquire`s back with it, as a `KeyedRateLimiter`'s. 1 per 10 s: A waits (booked at
  /// 10 s); at 5 s the clock steps back an hour; B books after the step. A resumes at its moved instant (5 s after
  /// the step on the base clock), not an hour late; B's booking is the in-process one.
  @Suite(.serialized) struct SteppedBackWaiterTests {
    /// What happened, in order: when A returned (on the base clock), and B's booking.
    static func play(
      _ clock: SetBackClock, retryAfter: @Sendable () async throws -> Duration?,
      reserve: @Sendable () async throws -> (Duration, Duration)?, acquire: @escaping @Sendable () async throws -> Void
    ) async throws -> [String] {
      let order = LockedValue<[String]>([])
      try await acquire()  // the grant at 0
      let a = Task {
        try await acquire()
        order.withLock { $0.append("A returned at \(clock.base.now)") }
      }
      await clock.base.waitUntilScheduled(atLeast: 1)
      clock.base.advance(to: .seconds(5))
      // A reading at 5 s, so that the step is exactly an hour (time after the last reading counts as none).
      _ = try await retryAfter()
      clock.goBack(by: .seconds(3_600))
      // B's booking notices the step: A's own timer (an hour late now) and one at its moved instant.
      let b = try await reserve()
      let moved = clock.base.scheduledCount == 2
      // Never waits for a waiter that will not come: without the move, A returns an hour late.
      clock.base.advance(to: moved ? .seconds(10) : .seconds(3_610))
      try await a.value
      return order.withLock { $0 } + ["B booked at \(b.map { "\($0.0), delay \($0.1)" } ?? "nil")"]
    }

    @Test(arguments: [false, true]) func waitersMoveBackWithTheClockAsInProcess(bucket: Bool) async throws {
      let localClock = SetBackClock()
      let local =
        bucket
        ? KeyedRateLimiter<String>(limit: 1, per: .seconds(10), burst: 1, clock: localClock)
        : KeyedRateLimiter<String>(limit: 1, per: .seconds(10), clock: localClock)
      let expected = try await Self.play(localClock) {
        local.retryAfter(for: "k")
      } reserve: {
        local.reserve(for: "k").map { ($0.time, $0.delay) }
      } acquire: {
        try await local.acquire(for: "k")
      }
      #expect(expected.first == "A returned at 10.0 seconds")
      _ = try await TestDatabase.withClient { client in
        let clock = SetBackClock()
        let name = TestDatabase.uniqueName()
        let shared =
          bucket
          ? PostgresRateLimiter(
            client: client, name: name, limit: 1, per: .seconds(10), burst: 1, time: .clock(clock),
            timeout: TestDatabase.timeout)
          : PostgresRateLimiter(
            client: client, name: name, limit: 1, per: .seconds(10), time: .clock(clock),
            timeout: TestDatabase.timeout)
        try await shared.prepare()
        let got = try await Self.play(clock) {
          try await shared.retryAfter(for: "k")
        } reserve: {
          try await shared.reserve(for: "k").map { ($0.time, $0.delay) }
        } acquire: {
          try await shared.acquire(for: "k")
        }
        #expect(got == expected)
      }
    }
  }
#endif
