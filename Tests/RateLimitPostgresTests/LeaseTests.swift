#if Postgres
  import Foundation
  import PostgresNIO
  import RateLimit
  import RateLimitHTTP
  @testable import RateLimitPostgres
  import Testing

  /// SPEC 4.4, `PostgresConcurrencyLimiter` in one process against the real server: its answers, its order, its
  /// waiters woken by other clients (their own connections, as other processes), `update`, and the outage policies.
  @Suite struct LeaseTests {
    static func limiter(
      _ client: PostgresClient, _ name: String, limit: Int, leaseTimeout: Duration = .seconds(3),
      whenUnavailable: PostgresConcurrencyLimiter.WhenUnavailable = .throwError,
      timeout: Duration = TestDatabase.timeout
    ) -> PostgresConcurrencyLimiter {
      PostgresConcurrencyLimiter(
        client: client, name: name, limit: limit, leaseTimeout: leaseTimeout, whenUnavailable: whenUnavailable,
        timeout: timeout)
    }

    @Test func leasesAreCountedReleasedAndReported() async throws {
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let limiter = Self.limiter(client, name, limit: 3)
        let first = try await limiter.decide(2, for: "k")
        #expect(first.isGranted && first.limit == 3 && first.remaining == 1 && !first.isFallback)
        #expect(try await limiter.tryAcquire(2, for: "k") == nil)
        let refused = try await limiter.decide(2, for: "k")
        #expect(!refused.isGranted && refused.remaining == 1)
        #expect(try await limiter.inUse(for: "k") == 2)
        // More than the limit: nil, and `acquire` throws at once.
        #expect(try await limiter.tryAcquire(4, for: "k") == nil)
        await #expect(throws: PostgresRateLimiterError.self) { _ = try await limiter.acquire(4, for: "k") }
        // A release is not counted by this limiter's next statement.
        first.lease?.release()
        first.lease?.release()
        #expect(try await limiter.inUse(for: "k") == 0)
        // Deallocation releases.
        do { _ = try await limiter.tryAcquire(3, for: "k") }
        #expect(try await limiter.inUse(for: "k") == 0)
        // withLease releases when its body throws, and rethrows.
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
          try await limiter.withLease(3, for: "k") { () async throws -> Void in throw Failure() }
        }
        #expect(try await limiter.inUse(for: "k") == 0)
        let value = try await limiter.withLease(for: "k") { 42 }
        #expect(value == 42)
        // Keys are at most 1,024 UTF-8 bytes.
        await #expect(throws: PostgresRateLimiterError.self) {
          _ = try await limiter.tryAcquire(for: String(repeating: "é", count: 513))
        }
        #expect(try await limiter.tryAcquire(for: String(repeating: "é", count: 512)) != nil)
      }
    }

    /// A rate limit and a concurrency limit of one name share nothing.
    @Test func aRateLimitAndAConcurrencyLimitMayShareAName() async throws {
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let rate = PostgresRateLimiter(
          client: client, name: name, limit: 5, per: .seconds(60), timeout: TestDatabase.timeout)
        let leases = Self.limiter(client, name, limit: 1)
        #expect(try await rate.tryAcquire(5, for: "k"))
        let lease = try await leases.tryAcquire(for: "k")
        #expect(lease != nil)
        #expect(!(try await rate.tryAcquire(for: "k")))
        lease?.release()
      }
    }

    /// Waiters of two clients (two processes' connections) are served in the order they reached the database,
    /// each woken within a round trip of the release (the check period is 1 s here), and `tryAcquire` never jumps
    /// the line.
    @Test func waitersAreServedInArrivalOrderAndWokenAtOnce() async throws {
      _ = try await TestDatabase.withClient { client in
        _ = try await TestDatabase.withClient { other in
          let name = TestDatabase.uniqueName()
          let here = Self.limiter(client, name, limit: 2)
          let there = Self.limiter(other, name, limit: 2)
          try await here.prepare()
          try await there.prepare()
          let held = try #require(try await here.tryAcquire(2, for: "k"))
          let served = LockedList()
          var tasks: [Task<Void, any Error>] = []
          for index in 0..<4 {
            let limiter = index.isMultiple(of: 2) ? there : here
            tasks.append(
              Task {
                let lease = try await limiter.acquire(index.isMultiple(of: 2) ? 1 : 2, for: "k")
                served.append(index)
                try await Task.sleep(for: .milliseconds(30))
                lease.release()
              })
            try await Self.waitUntilWaiting(index + 1, name: name, client: client)
          }
          #expect(try await there.tryAcquire(for: "k") == nil)
          #expect(try await there.decide(for: "k").remaining == 0)
          let released = ContinuousClock.now
          held.release()
          for task in tasks { try await task.value }
          #expect(served.values == [0, 1, 2, 3])
          // Four waiters, each served after the one before released: far less than one check period (1 s) each.
          #expect(ContinuousClock.now - released < .milliseconds(2_000))
          // Each limiter's releases reach the database before its next statement.
          _ = try await there.inUse(for: "k")
          #expect(try await here.inUse(for: "k") == 0)
        }
      }
    }

    @Test func aWaiterGivesUpAfterMaxWaitOrCancellationAndTheLineMovesUp() async throws {
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        let limiter = Self.limiter(client, name, limit: 1)
        let held = try #require(try await limiter.tryAcquire(for: "k"))
        let started = ContinuousClock.now
        await #expect(throws: RateLimiterError.waitedTooLong(maxWait: .milliseconds(300))) {
          _ = try await limiter.acquire(for: "k", within: .milliseconds(300))
        }
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        await #expect(throws: RateLimiterError.waitedTooLong(maxWait: .zero)) {
          _ = try await limiter.acquire(for: "k", within: .zero)
        }
        let cancelled = Task { try await limiter.acquire(for: "k") }
        try await Self.waitUntilWaiting(1, name: name, client: client)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
        // Its place is gone: the next waiter is served as soon as the lease is released.
        try await Self.waitUntilWaiting(0, name: name, client: client)
        let next = Task { try await limiter.acquire(for: "k") }
        try await Self.waitUntilWaiting(1, name: name, client: client)
        held.release()
        let lease = try await next.value
        #expect(try await limiter.inUse(for: "k") == 1)
        lease.release()
        // An already-cancelled task takes nothing.
        let already = Task {
          withUnsafeCurrentTask { $0?.cancel() }
          return try await limiter.acquire(for: "k")
        }
        await #expect(throws: CancellationError.self) { _ = try await already.value }
        #expect(try await limiter.inUse(for: "k") == 0)
      }
    }

    /// `update` from another client: applies from every limiter's next decision, serves waiters at once if it
    /// rose, and a waiter for more than the new limit throws `exceedsCapacity`.
    @Test func anUpdateIsSeenByEveryLimiterAndServesTheWaiters() async throws {
      _ = try await TestDatabase.withClient { client in
        _ = try await TestDatabase.withClient { other in
          let name = TestDatabase.uniqueName()
          let here = Self.limiter(client, name, limit: 3, leaseTimeout: .seconds(30))
          let there = Self.limiter(other, name, limit: 3, leaseTimeout: .seconds(30))
          try await here.prepare()
          let held = try #require(try await here.tryAcquire(3, for: "k"))
          let small = Task { try await here.acquire(for: "k") }
          try await Self.waitUntilWaiting(1, name: name, client: client)
          let large = Task { try await here.acquire(3, for: "k") }
          try await Self.waitUntilWaiting(2, name: name, client: client)
          let updated = ContinuousClock.now
          try await there.update(limit: 4)
          // Served by the notification, not the check period (10 s).
          let lease = try await small.value
          #expect(ContinuousClock.now - updated < .seconds(2))
          #expect(try await here.inUse(for: "k") == 4)
          #expect(try await here.decide(for: "other").limit == 4)
          #expect(here.limit == 4)
          try await there.update(limit: 2)
          await #expect(throws: PostgresRateLimiterError.self) { _ = try await large.value }
          // Leases held stay held above a lowered limit.
          #expect(try await there.inUse(for: "k") == 4)
          #expect(try await there.tryAcquire(for: "k") == nil)
          held.release()
          lease.release()
          // The releases reach the database before the same limiter's next statement.
          #expect(try await here.tryAcquire(2, for: "k") != nil)
        }
      }
    }

    /// Every outage policy, for `tryAcquire`, `acquire`, and a waiter whose database goes away mid-wait (answered
    /// at its next check, within `leaseTimeout / 3` plus `timeout`); `inUse` and `update` throw. The server is
    /// stopped (connections refused).
    @Test func everyPolicyAnswersWhenTheServerIsStopped() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let policies: [(String, PostgresConcurrencyLimiter.WhenUnavailable)] = [
            ("throw", .throwError), ("allow", .allow), ("deny", .deny),
            ("fallback", .fallback(KeyedConcurrencyLimiter(limit: 1))),
          ]
          let limiters = policies.map {
            Self.limiter(
              client, $0.0, limit: 1, leaseTimeout: .seconds(1), whenUnavailable: $0.1, timeout: .milliseconds(300))
          }
          var held: [Lease] = []
          for limiter in limiters { held.append(try #require(try await limiter.tryAcquire(for: "k"))) }
          let waiters = limiters.map { limiter in
            Task { () -> (Result<Lease, any Error>, Duration) in
              let started = ContinuousClock.now
              let result = await Result<Lease, any Error>(catching: {
                try await limiter.acquire(for: "k", within: .seconds(20))
              })
              return (result, ContinuousClock.now - started)
            }
          }
          for _ in 0..<200 {
            if try await Self.waiting(name: nil, client: client) == 4 { break }
            try await Task.sleep(for: .milliseconds(10))
          }
          let stopping = ContinuousClock.now
          await server("stop")
          let stopTook = ContinuousClock.now - stopping
          for (index, waiter) in waiters.enumerated() {
            let (result, _) = await waiter.value
            switch (index, result) {
            case (0, .failure(let error)), (2, .failure(let error)):
              #expect(error is PostgresRateLimiterError, "\(policies[index].0): \(error)")
            case (1, .success(let lease)):
              #expect(lease.permits == 1)
            case (3, .success(let lease)):
              lease.release()
            default:
              Issue.record("\(policies[index].0): \(result)")
            }
          }
          // Answered within a check period (1/3 s) plus the timeout (0.3 s) of the server going away.
          #expect(ContinuousClock.now - stopping < stopTook + .seconds(2))
          // Decisions while it is away.
          await #expect(throws: PostgresRateLimiterError.self) { _ = try await limiters[0].tryAcquire(for: "k") }
          let allowed = try await limiters[1].decide(for: "k")
          #expect(allowed.isGranted && allowed.isFallback && allowed.remaining == allowed.limit)
          let denied = try await limiters[2].decide(for: "k")
          #expect(!denied.isGranted && denied.isFallback)
          await #expect(throws: PostgresRateLimiterError.self) { _ = try await limiters[2].acquire(for: "k") }
          let local = try await limiters[3].decide(for: "k")
          #expect(local.isGranted && local.isFallback && local.limit == 1 && local.remaining == 0)
          #expect(try await limiters[3].tryAcquire(for: "k") == nil)
          for limiter in limiters {
            await #expect(throws: PostgresRateLimiterError.self) { _ = try await limiter.inUse(for: "k") }
            await #expect(throws: PostgresRateLimiterError.self) { try await limiter.update(limit: 2) }
          }
          // Caller errors are never "unavailable".
          await #expect(throws: PostgresRateLimiterError.self) {
            _ = try await limiters[1].tryAcquire(for: String(repeating: "x", count: 1_025))
          }
          withExtendedLifetime((held, local)) {}
        }
      }
    }

    /// SPEC 4.3.1, "fail closed is not a quota", for a concurrency policy: a request refused only because a
    /// `.deny` limiter could not reach its database is unavailable to the gate (a middleware's 503), not a 429;
    /// a `.fallback` limiter's own refusal stays a refusal (429, `Retry-After: 1`).
    @Test func aDenyWhileTheServerIsAwayIsUnavailableNotARefusal() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let name = TestDatabase.uniqueName()
          let deny = Self.limiter(client, name, limit: 1, whenUnavailable: .deny, timeout: .milliseconds(300))
          let local = KeyedConcurrencyLimiter<String>(limit: 1)
          let fallback = Self.limiter(
            client, name + "-f", limit: 1, whenUnavailable: .fallback(local), timeout: .milliseconds(300))
          try await deny.prepare()
          try await fallback.prepare()
          await server("stop")
          let denying = RateLimitGate([RateLimitPolicy("inflight", concurrency: deny)])
          do {
            let outcome = try await denying.decide(key: "k")
            Issue.record("decided while the database was away and the policy denies: \(outcome)")
          } catch let error as RateLimitGate.Unavailable {
            #expect(error.policies == ["inflight"])
          }
          let held = try #require(local.tryAcquire(for: "k"))
          let falling = RateLimitGate([RateLimitPolicy("inflight", concurrency: fallback)])
          guard case .refused(let refusal) = try await falling.decide(key: "k") else {
            Issue.record("the fallback's refusal was not a refusal")
            return
          }
          #expect(refusal.fields.contains { $0.name == "Retry-After" && $0.value == "1" })
          held.release()
        }
      }
    }

    /// A decision the database runs after its caller gave up (the server froze past `timeout`; the statement ran
    /// once it thawed) holds nothing for long: its lease is taken back as soon as the database answers again, not
    /// held by nobody until `leaseTimeout` (here a minute) ends it.
    @Test func aDecisionThatRunsAfterItsCallerGaveUpHoldsNothing() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let name = TestDatabase.uniqueName()
          let limiter = Self.limiter(
            client, name, limit: 1, leaseTimeout: .seconds(60), timeout: .milliseconds(250))
          try await limiter.prepare()
          #expect(try await limiter.inUse(for: "k") == 0)
          await server("freeze")
          await #expect(throws: PostgresRateLimiterError.self) { _ = try await limiter.tryAcquire(for: "k") }
          await server("thaw")
          try await TestDatabase.withClient(configuration) { other in
            let there = Self.limiter(other, name, limit: 1, leaseTimeout: .seconds(60))
            let start = ContinuousClock.now
            var lease: Lease?
            while lease == nil, ContinuousClock.now - start < .seconds(10) {
              lease = try await there.tryAcquire(for: "k")
              if lease == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(lease != nil, "the lease of a caller that gave up is still held")
            #expect(try await there.inUse(for: "k") == 1)
            lease?.release()
          }
        }
      }
    }

    /// A lease outlives `leaseTimeout` while its process renews it (as another client sees it), and once this
    /// process holds none, its renewal task ends within a renewal period.
    @Test func leasesAreRenewedWhileHeldAndNothingRunsOnceNoneIs() async throws {
      _ = try await TestDatabase.withClient { client in
        _ = try await TestDatabase.withClient { other in
          let name = TestDatabase.uniqueName()
          let here = Self.limiter(client, name, limit: 1, leaseTimeout: .seconds(1))
          let there = Self.limiter(other, name, limit: 1, leaseTimeout: .seconds(1))
          #expect(here.store.held.withLock { $0.renewing } == nil)
          let lease = try #require(try await here.tryAcquire(for: "k"))
          #expect(here.store.held.withLock { $0.renewing } != nil)
          try await Task.sleep(for: .milliseconds(2_500))
          #expect(try await there.tryAcquire(for: "k") == nil)
          #expect(try await there.inUse(for: "k") == 1)
          lease.release()
          try await Task.sleep(for: .milliseconds(500))
          #expect(here.store.held.withLock { $0.renewing } == nil)
          #expect(try await there.tryAcquire(for: "k") != nil)
        }
      }
    }

    /// Polls until `count` waiters (places not held) of `name` are in the database (at most 10 s).
    static func waitUntilWaiting(_ count: Int, name: String, client: PostgresClient) async throws {
      for _ in 0..<1_000 {
        if try await waiting(name: name, client: client) == count { return }
        try await Task.sleep(for: .milliseconds(10))
      }
      Issue.record("never \(count) waiters")
    }

    /// The waiters of `name` (of every name: `nil`) in the database.
    static func waiting(name: String?, client: PostgresClient) async throws -> Int {
      let rows =
        if let name {
          try await client.query(
            "SELECT count(*)::bigint FROM ratelimit_leases WHERE name = \(ByteBuffer(string: name)) AND NOT held")
        } else {
          try await client.query("SELECT count(*)::bigint FROM ratelimit_leases WHERE NOT held")
        }
      for try await count in rows.decode(Int64.self) { return Int(count) }
      return 0
    }
  }

  /// A list appended to by several tasks.
  final class LockedList: @unchecked Sendable {
    // @unchecked: `lock` guards `list`.
    private let lock = NSLock()
    private var list: [Int] = []
    func append(_ value: Int) { lock.withLock { list.append(value) } }
    var values: [Int] { lock.withLock { list } }
  }
#endif
