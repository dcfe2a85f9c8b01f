#if Postgres
  import Foundation
  import PostgresNIO
  import RateLimit
  @testable import RateLimitPostgres
  import Testing

  /// SPEC 4.0, "when the database cannot answer": every policy, against a port where nothing listens and against a
  /// server stopped and started under load. No decision takes longer than the timeout (plus scheduling slack on
  /// this shared VM); nothing crashes or hangs; once the server is back, decisions go to it again.
  @Suite(.serialized) struct AvailabilityTests {
    static let timeout = Duration.milliseconds(100)
    /// What a busy 2-core machine may add to a timer's deadline (the load below runs in this very process).
    static let slack = Duration.milliseconds(250)

    enum Policy: String, CaseIterable, Sendable {
      case throwError, allow, deny, fallback
    }

    static func limiter(_ client: PostgresClient, _ policy: Policy, name: String) -> PostgresRateLimiter {
      let whenUnavailable: PostgresRateLimiter.WhenUnavailable =
        switch policy {
        case .throwError: .throwError
        case .allow: .allow
        case .deny: .deny
        case .fallback: .fallback(KeyedRateLimiter(limit: 2, per: .seconds(60)))
        }
      return PostgresRateLimiter(
        client: client, name: name, limit: 1_000_000, per: .seconds(60), whenUnavailable: whenUnavailable,
        timeout: timeout)
    }

    /// Runs `body`: what it returned or threw, and how long it took.
    static func attempt<Value>(_ body: () async throws -> Value) async -> (Result<Value, any Error>, Duration) {
      let clock = ContinuousClock()
      let start = clock.now
      let result: Result<Value, any Error>
      do { result = .success(try await body()) } catch { result = .failure(error) }
      return (result, clock.now - start)
    }

    static func freePort() -> Int {
      let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      defer { close(socket) }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
      }
      _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
      }
      return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test(arguments: Policy.allCases) func nothingListens(_ policy: Policy) async throws {
      let configuration = PostgresClient.Configuration(
        host: "127.0.0.1", port: Self.freePort(), username: "postgres", password: nil, database: nil, tls: .disable)
      _ = try await TestDatabase.withClient(configuration) { client in
        let limiter = Self.limiter(client, policy, name: "n")
        for attempt in 0..<3 {
          let (granted, elapsed) = await Self.attempt { try await limiter.tryAcquire(for: "k") }
          #expect(elapsed < Self.timeout + Self.slack, "\(policy) tryAcquire took \(elapsed)")
          switch (policy, granted) {
          case (.throwError, .failure(PostgresRateLimiterError.unavailable)): break
          case (.allow, .success(true)), (.deny, .success(false)): break
          case (.fallback, .success(let granted)): #expect(granted == (attempt < 2), "the local limiter decides")
          default: Issue.record("\(policy): tryAcquire gave \(granted)")
          }
          let (retry, retryElapsed) = await Self.attempt { try await limiter.retryAfter(for: "k") }
          #expect(retryElapsed < Self.timeout + Self.slack)
          switch (policy, retry) {
          case (.throwError, .failure(PostgresRateLimiterError.unavailable)): break
          case (.allow, .success(.zero)), (.deny, .success(nil)): break
          case (.fallback, .success(let wait)):
            // The local limiter, on the real clock: free after the first grant, about a minute after the second.
            #expect(attempt == 0 ? wait == .zero : (wait ?? .zero) > .seconds(59), "\(String(describing: wait))")
          default: Issue.record("\(policy): retryAfter gave \(retry)")
          }
        }
        let (reserved, elapsed) = await Self.attempt { try await limiter.reserve(for: "r") }
        #expect(elapsed < Self.timeout + Self.slack)
        switch (policy, reserved) {
        case (.throwError, .failure(PostgresRateLimiterError.unavailable)): break
        case (.allow, .success(let booking?)): #expect(booking.delay == .zero)
        case (.deny, .success(nil)): break
        case (.fallback, .success(let booking?)): #expect(booking.delay == .zero)
        default: Issue.record("\(policy): reserve gave \(reserved)")
        }
        let (acquired, acquireElapsed) = await Self.attempt { try await limiter.acquire(for: "a") }
        #expect(acquireElapsed < Self.timeout + Self.slack)
        switch (policy, acquired) {
        case (.throwError, .failure(PostgresRateLimiterError.unavailable)),
          (.deny, .failure(PostgresRateLimiterError.unavailable)), (.allow, .success), (.fallback, .success):
          break
        default: Issue.record("\(policy): acquire gave \(acquired)")
        }
        // Whatever the policy, the caller's own errors are not "unavailable", and need no round trip.
        await #expect(throws: PostgresRateLimiterError.self) { try await limiter.acquire(2_000_000, for: "k") }
        do {
          _ = try await limiter.tryAcquire(for: String(repeating: "k", count: 2_000))
          Issue.record("a long key was accepted")
        } catch PostgresRateLimiterError.invalidKey {}
        // count, sweep and cancel throw "unavailable" whatever the policy, within the timeout too.
        let (counted, countElapsed) = await Self.attempt { try await limiter.count() }
        #expect(countElapsed < Self.timeout + Self.slack)
        guard case .failure(PostgresRateLimiterError.unavailable) = counted else {
          Issue.record("count gave \(counted)")
          return
        }
      }
    }

    @Test(arguments: Policy.allCases) func theServerStopsAndStartsUnderLoad(_ policy: Policy) async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let name = "restart-\(policy)"
          let limiter = Self.limiter(client, policy, name: name)
          try await limiter.prepare()
          let outage = OutageLog()
          // Three tasks decide without pause on their own keys while the server stops and starts.
          let load = Task {
            await withTaskGroup(of: Void.self) { group in
              for worker in 0..<3 {
                group.addTask {
                  while !Task.isCancelled {
                    // The database grants a million a minute; the fallback's local limiter two.
                    let (result, elapsed) = await Self.attempt { try await limiter.tryAcquire(for: "worker \(worker)") }
                    outage.record(result, elapsed: elapsed)
                  }
                }
              }
            }
          }
          try await Task.sleep(for: .milliseconds(300))
          await server("stop")
          try await Task.sleep(for: .milliseconds(500))
          let duringOutage = outage.decisions
          await server("start")
          // Decisions go to the database again, with no restart of the client or the limiter.
          let clock = ContinuousClock()
          let deadline = clock.now + .seconds(30)
          var backAt: Duration?
          while clock.now < deadline {
            if (try? await limiter.count()) != nil {
              backAt = clock.now - (deadline - .seconds(30))
              break
            }
            try await Task.sleep(for: .milliseconds(50))
          }
          try await Task.sleep(for: .milliseconds(200))
          load.cancel()
          await load.value
          #expect(backAt != nil, "\(policy): the database never answered again")
          let answers = outage.answers
          #expect(duringOutage > 0)
          #expect(outage.slowest < Self.timeout + Self.slack, "\(policy): a decision took \(outage.slowest)")
          #expect(answers.other.isEmpty, "\(policy): \(answers.other)")
          switch policy {
          case .throwError: #expect(answers.unavailable > 0 && answers.refused == 0)
          case .allow: #expect(answers.unavailable == 0 && answers.refused == 0)
          case .deny: #expect(answers.unavailable == 0 && answers.refused > 0)
          case .fallback: #expect(answers.unavailable == 0 && answers.refused > 0)  // the local limit is 2 a minute
          }
          // After the outage: the database decides (every key is new, so granted), and remembers.
          #expect(try await limiter.tryAcquire(for: "after"))
          #expect(try await limiter.count() > 0)
        }
      }
    }
  }

  /// What the load saw: how many decisions, the slowest, and their answers.
  final class OutageLog: @unchecked Sendable {
    // @unchecked Sendable: every field is guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    private var maximum = Duration.zero
    private var tally = (unavailable: 0, refused: 0, other: [String]())

    func record(_ result: Result<Bool, any Error>, elapsed: Duration) {
      lock.withLock {
        count += 1
        maximum = max(maximum, elapsed)
        switch result {
        case .success(true): break
        case .success(false): tally.refused += 1
        case .failure(PostgresRateLimiterError.unavailable): tally.unavailable += 1
        case .failure(let error): tally.other.append("\(error)")
        }
      }
    }

    var decisions: Int { lock.withLock { count } }
    var slowest: Duration { lock.withLock { maximum } }
    var answers: (unavailable: Int, refused: Int, other: [String]) { lock.withLock { tally } }
  }
#endif
