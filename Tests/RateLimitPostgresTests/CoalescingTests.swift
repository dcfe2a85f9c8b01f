#if Postgres
  import PostgresNIO
  import RateLimit
  @testable import RateLimitPostgres
  import RateLimitStoreKit
  import Testing

  /// SPEC 4.1, "the fleet at the database's speed": concurrent decisions share round trips, with the answers of
  /// the same decisions made one by one in arrival order; a refused key answers locally.
  @Suite(.serialized) struct CoalescingTests {
    enum Ask: CustomStringConvertible {
      case tryAcquire(Int, String)
      case decide(Int, String)
      case reserve(Int, String, within: Duration?)
      case retryAfter(Int, String)

      var description: String {
        switch self {
        case .tryAcquire(let p, let k): "tryAcquire(\(p), \(k))"
        case .decide(let p, let k): "decide(\(p), \(k))"
        case .reserve(let p, let k, let w): "reserve(\(p), \(k), within: \(String(describing: w)))"
        case .retryAfter(let p, let k): "retryAfter(\(p), \(k))"
        }
      }
    }

    /// What either limiter answered, in one comparable form.
    enum Answer: Equatable {
      case granted(Bool)
      case decision(RateLimitDecision)
      case booking(Duration?, Duration?)  // time, delay
      case wait(Duration?)
    }

    static func ask(_ ask: Ask, _ shared: PostgresRateLimiter) async throws -> Answer {
      switch ask {
      case .tryAcquire(let p, let k): .granted(try await shared.tryAcquire(p, for: k))
      case .decide(let p, let k): .decision(try await shared.decide(p, for: k))
      case .reserve(let p, let k, let w):
        try await shared.reserve(p, for: k, within: w).map { .booking($0.time, $0.delay) } ?? .booking(nil, nil)
      case .retryAfter(let p, let k): .wait(try await shared.retryAfter(p, for: k))
      }
    }

    static func ask(_ ask: Ask, _ local: KeyedRateLimiter<String>) -> Answer {
      switch ask {
      case .tryAcquire(let p, let k): .granted(local.tryAcquire(p, for: k))
      case .decide(let p, let k): .decision(local.decide(p, for: k))
      case .reserve(let p, let k, let w):
        local.reserve(p, for: k, within: w).map { .booking($0.time, $0.delay) } ?? .booking(nil, nil)
      case .retryAfter(let p, let k): .wait(local.retryAfter(p, for: k))
      }
    }

    static func randomAsk(_ generator: inout some RandomNumberGenerator, capacity: Int, window: Duration) -> Ask {
      let key = ["a", "b", "c"].randomElement(using: &generator)!
      // Within the capacity: a larger request is answered without the database, so it never arrives.
      let permits = Int.random(in: 1...capacity, using: &generator)
      switch Int.random(in: 0..<4, using: &generator) {
      case 0: return .tryAcquire(permits, key)
      case 1: return .decide(permits, key)
      case 2: return .reserve(permits, key, within: Bool.random(using: &generator) ? nil : window)
      default: return .retryAfter(permits, key)
      }
    }

    /// Each round: a decision is in flight on a server that answers nothing (frozen); eight more arrive, in a
    /// known order, and queue; the server answers again: the eight go in one statement. Their answers are those
    /// of `KeyedRateLimiter` fed the same decisions in that order, on the same clock. (Until 4.1.1 the decision
    /// in flight waited for a key's lock a test session held; since 4.1.1 a held lock sends that decision out of
    /// the lane after 1 ms, so that it never holds up the others: `ExactAgainTests.aLockedKeyNeverHoldsUpTheOtherKeys`.)
    @Test(arguments: [false, true]) func concurrentDecisionsAnswerAsOneByOneInArrivalOrder(bucket: Bool)
      async throws
    {
      let seed = UInt64.random(in: 0...UInt64.max)
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await Self.playRounds(seed: seed, bucket: bucket, configuration: configuration, server: server)
      }
    }

    static func playRounds(
      seed: UInt64, bucket: Bool, configuration: PostgresClient.Configuration,
      server: @Sendable (String) async -> Void
    ) async throws {
      _ = try await TestDatabase.withClient(configuration) { client in
        var generator = SeededGenerator(seed: seed)
        let (limit, burst, window) = (3, 4, Duration.milliseconds(7))
        let clock = ManualClock()
        let name = TestDatabase.uniqueName()
        let shared =
          bucket
          ? PostgresRateLimiter(
            client: client, name: name, limit: limit, per: window, burst: burst, time: .clock(clock),
            timeout: TestDatabase.timeout, localRefusals: false)
          : PostgresRateLimiter(
            client: client, name: name, limit: limit, per: window, time: .clock(clock),
            timeout: TestDatabase.timeout, localRefusals: false)
        try await shared.prepare()
        let local =
          bucket
          ? KeyedRateLimiter<String>(limit: limit, per: window, burst: burst, clock: clock)
          : KeyedRateLimiter<String>(limit: limit, per: window, clock: clock)
        for round in 0..<12 {
          clock.advance(by: .nanoseconds(Int64.random(in: 0...5_000_000, using: &generator)))
          let asks = (0..<8).map { _ in Self.randomAsk(&generator, capacity: bucket ? burst : limit, window: window) }
          let expected = [Self.ask(.tryAcquire(1, "blocker"), local)] + asks.map { Self.ask($0, local) }
          let before = shared.store.coalescer.counts
          await server("freeze")
          let answers = try await withThrowingTaskGroup(of: (Int, Answer).self) { group in
            for (index, ask) in ([Ask.tryAcquire(1, "blocker")] + asks).enumerated() {
              group.addTask { (index, try await Self.ask(ask, shared)) }
              // The next starts once this one has arrived: arrival order is the array's.
              await shared.store.coalescer.waitUntilArrivals(before.arrivals + index + 1)
            }
            await server("thaw")
            var answers = [Answer?](repeating: nil, count: asks.count + 1)
            for try await (index, answer) in group { answers[index] = answer }
            return answers
          }
          let context = "seed \(seed), round \(round): \(asks)"
          #expect(answers == expected, "\(context)")
          let after = shared.store.coalescer.counts
          #expect(after.statements - before.statements == 2, "\(context): the blocked one, then the eight")
        }
      }
    }

    /// Batches lock their keys in one order: two limiters on separate clients (two processes) deciding the
    /// same keys in every order at once never wait for each other in a cycle. A cycle would hold each
    /// statement until `lock_timeout` (four fifths of the 500 ms timeout, well before PostgreSQL's 1 s deadlock
    /// check) and answer "unavailable", which `.throwError` throws; and no key is granted more than its limit.
    @Test func batchesOnTheSameKeysNeverDeadlock() async throws {
      guard let configuration = TestDatabase.configuration() else { return }
      let name = TestDatabase.uniqueName()
      let keys = (0..<8).map { "key-\($0)" }
      let granted = try await withThrowingTaskGroup(of: [String: Int].self) { processes in
        for _ in 0..<2 {
          processes.addTask {
            try await TestDatabase.withClient(configuration) { client in
              let shared = PostgresRateLimiter(
                client: client, name: name, limit: 300, per: .seconds(3_600), timeout: .milliseconds(500))
              try await shared.prepare()
              return try await withThrowingTaskGroup(of: [String: Int].self) { tasks in
                for task in 0..<32 {
                  tasks.addTask {
                    var granted: [String: Int] = [:]
                    for index in 0..<40 {
                      let key = keys[(task &* 3 &+ index &* (task % 2 == 0 ? 1 : 7)) % keys.count]
                      if try await shared.tryAcquire(for: key) { granted[key, default: 0] += 1 }
                    }
                    return granted
                  }
                }
                return try await tasks.reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
              }
            } ?? [:]
          }
        }
        return try await processes.reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
      }
      // 2 × 32 × 40 = 2,560 requests over 8 keys (320 a key): exactly 300 of each key's are granted.
      #expect(granted == Dictionary(uniqueKeysWithValues: keys.map { ($0, 300) }))
    }

    /// A key the database refused is refused here, without a statement, until it can grant one permit; its
    /// `decide` reports what `KeyedRateLimiter` reports. Past that instant it asks the database again.
    @Test(arguments: [false, true]) func aRefusedHotKeySendsNoStatement(bucket: Bool) async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let (name, window) = (TestDatabase.uniqueName(), Duration.seconds(60))
        let shared =
          bucket
          ? PostgresRateLimiter(
            client: client, name: name, limit: 2, per: window, burst: 2, time: .clock(clock),
            timeout: TestDatabase.timeout)
          : PostgresRateLimiter(
            client: client, name: name, limit: 2, per: window, time: .clock(clock), timeout: TestDatabase.timeout)
        try await shared.prepare()
        let local =
          bucket
          ? KeyedRateLimiter<String>(limit: 2, per: window, burst: 2, clock: clock)
          : KeyedRateLimiter<String>(limit: 2, per: window, clock: clock)
        for _ in 0..<2 { #expect(try await shared.tryAcquire(for: "hot") == local.tryAcquire(for: "hot")) }
        clock.advance(by: .seconds(1))
        #expect(try await shared.tryAcquire(for: "hot") == false)
        #expect(local.tryAcquire(for: "hot") == false)
        let refused = shared.store.coalescer.counts.statements
        #expect(refused == 3)
        for step in 0..<1_000 {
          if step % 100 == 0 { clock.advance(by: .milliseconds(100)) }
          #expect(try await shared.tryAcquire(for: "hot") == false)
          #expect(try await shared.decide(for: "hot") == local.decide(for: "hot"))
          #expect(try await shared.retryAfter(for: "hot") == local.retryAfter(for: "hot"))
        }
        #expect(shared.store.coalescer.counts.statements == refused, "a refused key sends nothing")
        // Another key, and a request for 2 permits (which a refusal for 1 cannot answer), still go.
        #expect(try await shared.tryAcquire(for: "cold") == local.tryAcquire(for: "cold"))
        #expect(try await shared.decide(2, for: "hot") == local.decide(2, for: "hot"))
        #expect(shared.store.coalescer.counts.statements == refused + 2)
        // Once a permit can be granted, the database is asked again.
        clock.advance(by: local.retryAfter(for: "hot") ?? .zero)
        #expect(try await shared.tryAcquire(for: "hot") == local.tryAcquire(for: "hot"))
        #expect(shared.store.coalescer.counts.statements == refused + 3)
      }
    }

    /// `localRefusals: false`: every decision asks the database.
    @Test func withoutLocalRefusalsEveryDecisionIsAStatement() async throws {
      _ = try await TestDatabase.withClient { client in
        let clock = ManualClock()
        let shared = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 1, per: .seconds(60), time: .clock(clock),
          timeout: TestDatabase.timeout, localRefusals: false)
        try await shared.prepare()
        #expect(try await shared.tryAcquire(for: "hot"))
        for _ in 0..<10 { #expect(try await shared.tryAcquire(for: "hot") == false) }
        #expect(shared.store.coalescer.counts.statements == 11)
      }
    }
  }
#endif

#if Postgres
  import Testing
  @testable import RateLimitPostgres

  /// The local refusals stay bounded: a full table refuses no new key locally until a refusal it holds has
  /// passed, and then forgets those that have.
  @Suite struct LocalRefusalsTests {
    /// SPEC 4.3.1: no refusal kept while not listening, nor one answered before the listener (re)started or an
    /// operation was heard: any of them may have missed another process's reset.
    @Test func aRefusalAnsweredBeforeListeningOrAnOperationIsNotKept() {
      let refusals = LocalRefusals()
      let key = ByteBuffer(string: "k")
      refusals.refuse(key, answeredAt: 0, time: 10, restAt: 10, sent: .zero, epoch: refusals.epoch)
      #expect(refusals.refusal(for: key, at: .zero) == nil, "not listening")
      let before = refusals.epoch
      refusals.listening(true)
      refusals.refuse(key, answeredAt: 0, time: 10, restAt: 10, sent: .zero, epoch: before)
      #expect(refusals.refusal(for: key, at: .zero) == nil, "sent before listening")
      let sent = refusals.epoch
      refusals.ended(for: ByteBuffer(string: "other"))
      refusals.refuse(key, answeredAt: 0, time: 10, restAt: 10, sent: .zero, epoch: sent)
      #expect(refusals.refusal(for: key, at: .zero) == nil, "an operation heard meanwhile")
      refusals.refuse(key, answeredAt: 0, time: 10, restAt: 10, sent: .zero, epoch: refusals.epoch)
      #expect(refusals.refusal(for: key, at: .zero) != nil)
      refusals.listening(false)
      #expect(refusals.refusal(for: key, at: .zero) == nil, "the listener lost")
    }

    /// The review of 4.3.1: the database's clock learned from each answer keeps the largest offset of the last
    /// minute, so one answer read late does not pull every operation's deadline into the past.
    @Test func oneLateAnswerDoesNotPullTheDeadlinesIn() async throws {
      _ = try await TestDatabase.withClient { client in
        let limiter = PostgresRateLimiter(client: client, name: "clock", limit: 1, per: .seconds(1))
        let store = limiter.store
        #expect(store.operationDeadline() == nil)
        let now = store.localNanoseconds
        store.learn(databaseClock: now + 1_000_000_000)
        store.learn(databaseClock: now)  // read a second late
        let deadline = try #require(store.operationDeadline())
        #expect(deadline > now + 1_000_000_000)
      }
    }

    @Test func aFullTableTakesNoNewKeyUntilARefusalHasPassed() {
      let refusals = LocalRefusals()
      refusals.listening(true)
      for index in 0..<LocalRefusals.capacity {
        refusals.refuse(
          ByteBuffer(string: "key-\(index)"), until: .seconds(10 + index % 3), restAt: .seconds(20), now: .zero)
      }
      refusals.refuse(ByteBuffer(string: "late"), until: .seconds(30), restAt: .seconds(40), now: .seconds(1))
      #expect(refusals.refusal(for: ByteBuffer(string: "late"), at: .seconds(1)) == nil, "full: not remembered")
      #expect(refusals.refusal(for: ByteBuffer(string: "key-0"), at: .seconds(1))?.until == .seconds(10))
      // At 10 s a third of the refusals have passed: room again.
      refusals.refuse(ByteBuffer(string: "late"), until: .seconds(30), restAt: .seconds(40), now: .seconds(10))
      #expect(refusals.refusal(for: ByteBuffer(string: "late"), at: .seconds(10))?.until == .seconds(30))
      #expect(refusals.refusal(for: ByteBuffer(string: "key-1"), at: .seconds(10))?.until == .seconds(11))
      #expect(refusals.refusal(for: ByteBuffer(string: "key-0"), at: .seconds(10)) == nil)
    }
  }
#endif
