#if Postgres
  import Foundation
  import PostgresNIO
  import RateLimit
  import RateLimitHTTP
  import RateLimitPostgres
  import Testing

  /// SPEC 4.2: a PostgreSQL plan shared by two server instances (each its own client, as two processes), counting
  /// only failures: a success on one instance gives its permit back on the shared key, seen by the other. The
  /// gate is what both middlewares run (`RateLimitGate`); its settlement is what they do after the route.
  @Suite struct SharedCountingTests {
    @Test func aSuccessOnOneInstanceGivesBackOnTheSharedKey() async throws {
      _ = try await TestDatabase.withClient { (first: PostgresClient) async throws in
        _ = try await TestDatabase.withClient { (second: PostgresClient) async throws in
          let name = TestDatabase.uniqueName()
          func instance(_ client: PostgresClient) -> (RateLimitGate, PostgresRateLimiter) {
            let limiter = PostgresRateLimiter(
              client: client, name: name, limit: 3, per: .seconds(900), timeout: TestDatabase.timeout,
              localRefusals: false)
            return (RateLimitGate([RateLimitPolicy("login", limiter, counting: .failures)]), limiter)
          }
          let (a, limiterA) = instance(first)
          let (b, limiterB) = instance(second)
          /// One login on `gate`, answered `status` by the route; whether it was let through.
          func login(_ gate: RateLimitGate, _ status: Int) async throws -> Bool {
            let decided = try await gate.decideRequest(key: "10.0.0.1")
            guard case .granted = decided.outcome else { return false }
            await decided.settlement.settle(status: status)
            return true
          }
          #expect(try await login(a, 401))
          #expect(try await login(b, 200))  // a success: given back
          #expect(try await limiterA.peek(for: "10.0.0.1").remaining == 1)
          #expect(try await login(a, 200))
          #expect(try await login(b, 401))
          #expect(try await login(a, 500))
          // Three failures: refused on both instances.
          #expect(try await login(b, 200) == false)
          #expect(try await login(a, 200) == false)
          #expect(try await !limiterB.peek(for: "10.0.0.1").isGranted)
        }
      }
    }

    /// SPEC 4.2: "if [the give-back] fails the permits stay taken (logged)". The server is stopped when the route
    /// answers, so the give-back fails; once the server is back, the grant is still taken (4.2 first revoked it
    /// later, in the background, as it revokes a refused request's grants). With two policies on one client the
    /// give-back is one statement (`ratelimit_give_back_all_v1`): it fails the same way.
    @Test(arguments: [1, 2]) func aGiveBackThatFailsLeavesThePermitsTaken(policies: Int) async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let logins = (0..<policies).map { _ in
            PostgresRateLimiter(
              client: client, name: TestDatabase.uniqueName(), limit: 3, per: .seconds(900),
              timeout: .milliseconds(250), localRefusals: false)
          }
          for limiter in logins { try await limiter.prepare() }
          let gate = RateLimitGate(
            logins.enumerated().map { RateLimitPolicy("login-\($0)", $1, counting: .failures) })
          let decided = try await gate.decideRequest(key: "10.0.0.3")
          guard case .granted = decided.outcome else {
            Issue.record("the first login was refused")
            return
          }
          await server("stop")
          await decided.settlement.settle(status: 200)  // a success, not counted: its give-back fails
          await server("start")
          // Long enough for a background revocation (tried again every second) to have run.
          try await Task.sleep(for: .seconds(3))
          for limiter in logins { #expect(try await limiter.peek(for: "10.0.0.3").remaining == 1) }
        }
      }
    }

    /// The `ratelimit_` statements the test server logged while `body` ran (every statement logged meanwhile).
    static func statements(
      on client: PostgresClient, during body: () async throws -> Void
    ) async throws -> [Substring] {
      guard let directory = ProcessInfo.processInfo.environment["RATELIMIT_POSTGRES_DIR"] else {
        Issue.record("RATELIMIT_POSTGRES_DIR is not set: run the suite through scripts/with-postgres.sh")
        return []
      }
      let marker = "statements-\(UInt64.random(in: 0...UInt64.max))"
      _ = try await client.query("ALTER SYSTEM SET log_statement = 'all'")
      _ = try await client.query("SELECT pg_reload_conf()")
      try await Task.sleep(for: .milliseconds(300))  // every backend reads the configuration again
      _ = try await client.query(PostgresQuery(unsafeSQL: "SELECT '\(marker)-start'"))
      try await body()
      _ = try await client.query(PostgresQuery(unsafeSQL: "SELECT '\(marker)-end'"))
      _ = try await client.query("ALTER SYSTEM RESET log_statement")
      _ = try await client.query("SELECT pg_reload_conf()")
      let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
      let between =
        log.components(separatedBy: "\(marker)-start").last?.components(separatedBy: "\(marker)-end").first ?? ""
      return between.split(separator: "\n").filter { $0.contains("LOG:") && $0.contains("ratelimit_") }
    }

    /// SPEC 4.2: a request's policies are decided in one round trip on one client, those that count only
    /// failures, run in shadow or penalise included. A login policy counting failures with a penalty beside a
    /// shadow trial: the granted request and the penalised refusal are one statement each
    /// (`ratelimit_decide_operated_v1`; 4.2 first sent one statement per policy, then one more per grant to take
    /// back on a refusal).
    @Test func countingShadowAndPenaltyPoliciesAreOneStatementARequest() async throws {
      _ = try await TestDatabase.withClient { (client: PostgresClient) async throws in
        func limiter(_ limit: Int) -> PostgresRateLimiter {
          PostgresRateLimiter(
            client: client, name: TestDatabase.uniqueName(), limit: limit, per: .seconds(60),
            timeout: TestDatabase.timeout, localRefusals: false)
        }
        let (logins, trial) = (limiter(1), limiter(1))
        try await logins.prepare()
        try await trial.prepare()
        let gate = RateLimitGate([
          RateLimitPolicy("login", logins, counting: .failures, penalty: .seconds(600)),
          RateLimitPolicy("trial", trial, mode: .shadow),
        ])
        var first: RateLimitGate.Decided?
        let granting = try await Self.statements(on: client) {
          first = try await gate.decideRequest(key: "10.0.0.6")
        }
        guard let first, case .granted = first.outcome else {
          Issue.record("the first login was refused: \(String(describing: first?.outcome))")
          return
        }
        #expect(
          granting.count == 1 && granting.allSatisfy { $0.contains("ratelimit_decide_operated_v1") }, "\(granting)")
        await first.settlement.settle(status: 401)  // a failure: counted
        var second: RateLimitGate.Decided?
        let refusing = try await Self.statements(on: client) {
          second = try await gate.decideRequest(key: "10.0.0.6")
        }
        guard let second, case .refused(let refusal) = second.outcome else {
          Issue.record("the second login was granted")
          return
        }
        #expect(
          refusing.count == 1 && refusing.allSatisfy { $0.contains("ratelimit_decide_operated_v1") }, "\(refusing)")
        #expect(refusal.retryAfter == .seconds(600))  // the penalty, set by that statement
        // SPEC 4.3.1: an enforced refusal leaves the shadow undecided, counted as nothing (4.2 counted it).
        #expect(second.shadowRefused == [])
        // The refused request kept nothing: the trial's permit is the first request's alone.
        #expect(try await trial.peek(for: "10.0.0.6").remaining == 0)
        #expect(try await logins.peek(for: "10.0.0.6").retryAfter.map { $0 > .seconds(590) } == true)
      }
    }

    /// SPEC 4.2: "PostgreSQL: the give-back is one round trip". A request granted by two policies that count only
    /// failures, on one client, succeeds: both grants are given back in one statement
    /// (`ratelimit_give_back_all_v1`; 4.2 first sent one `ratelimit_undo_v5` per policy), exactly.
    @Test func aRequestsGiveBackIsOneStatement() async throws {
      _ = try await TestDatabase.withClient { (client: PostgresClient) async throws in
        func limiter(_ limit: Int, burst: Int? = nil) -> PostgresRateLimiter {
          burst.map {
            PostgresRateLimiter(
              client: client, name: TestDatabase.uniqueName(), limit: limit, per: .seconds(60), burst: $0,
              timeout: TestDatabase.timeout, localRefusals: false)
          }
            ?? PostgresRateLimiter(
              client: client, name: TestDatabase.uniqueName(), limit: limit, per: .seconds(60),
              timeout: TestDatabase.timeout, localRefusals: false)
        }
        let (perMinute, perBucket) = (limiter(2), limiter(2, burst: 2))
        try await perMinute.prepare()
        try await perBucket.prepare()
        let gate = RateLimitGate([
          RateLimitPolicy("login", perMinute, counting: .failures),
          RateLimitPolicy("login-bucket", perBucket, permits: 2, counting: .failures),
        ])
        let decided = try await gate.decideRequest(key: "10.0.0.9")
        guard case .granted = decided.outcome else {
          Issue.record("the login was refused: \(decided.outcome)")
          return
        }
        let givingBack = try await Self.statements(on: client) {
          await decided.settlement.settle(status: 200)  // a success: not counted
        }
        #expect(
          givingBack.count == 1 && givingBack.allSatisfy { $0.contains("ratelimit_give_back_all_v1") }, "\(givingBack)")
        #expect(try await perMinute.peek(2, for: "10.0.0.9").isGranted)
        #expect(try await perBucket.peek(2, for: "10.0.0.9").isGranted)
      }
    }

    /// SPEC 4.2: a penalty is set "in PostgreSQL in the same round trip" as the refusal. With every statement
    /// logged by the test server, the penalised refusal is one statement (`ratelimit_decide_penalising_v1`) and
    /// no `ratelimit_operate_v1` follows it (4.2 first sent the block as a second statement).
    @Test func aPenaltyIsSetInTheRefusalsRoundTrip() async throws {
      _ = try await TestDatabase.withClient { (client: PostgresClient) async throws in
        let logins = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 1, per: .seconds(60),
          timeout: TestDatabase.timeout, localRefusals: false)
        try await logins.prepare()
        let gate = RateLimitGate([RateLimitPolicy("login", logins, penalty: .seconds(600))])
        guard case .granted = try await gate.decideRequest(key: "10.0.0.4").outcome else {
          Issue.record("the first login was refused")
          return
        }
        var refusal: RateLimitGate.Outcome?
        let statements = try await Self.statements(on: client) {
          refusal = try await gate.decideRequest(key: "10.0.0.4").outcome
        }
        guard case .refused(let refused) = refusal else {
          Issue.record("the second login was granted")
          return
        }
        #expect(refused.retryAfter == .seconds(600))
        #expect(statements.count == 1, "\(statements)")
        #expect(statements.allSatisfy { $0.contains("ratelimit_decide_penalising_v1") }, "\(statements)")
      }
    }

    /// A blocked client hammering the route costs the database nothing: once a penalised refusal has blocked the
    /// key, this process refuses it locally until the block ends (4.2 first sent op 5 for each refusal, to learn
    /// that a block was in force already).
    @Test func refusalsDuringAPenaltyAskTheDatabaseNothing() async throws {
      _ = try await TestDatabase.withClient { (client: PostgresClient) async throws in
        let logins = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 1, per: .seconds(60),
          timeout: TestDatabase.timeout)
        try await logins.prepare()
        let gate = RateLimitGate([RateLimitPolicy("login", logins, penalty: .seconds(600))])
        guard case .granted = try await gate.decideRequest(key: "10.0.0.5").outcome,
          case .refused = try await gate.decideRequest(key: "10.0.0.5").outcome
        else {
          Issue.record("expected a grant, then a penalised refusal")
          return
        }
        var waits: [Duration?] = []
        let statements = try await Self.statements(on: client) {
          for _ in 0..<5 {
            guard case .refused(let refusal) = try await gate.decideRequest(key: "10.0.0.5").outcome else {
              Issue.record("granted during the block")
              continue
            }
            waits.append(refusal.retryAfter)
          }
        }
        #expect(waits.allSatisfy { $0.map { $0 > .seconds(590) && $0 <= .seconds(600) } ?? false }, "\(waits)")
        #expect(statements.isEmpty, "\(statements)")
      }
    }

    /// A penalty on a PostgreSQL policy: a refusal by the rule blocks the key for the penalty (one round trip),
    /// refusals during the block do not extend it, and `Retry-After` counts down to its end.
    @Test func aPenaltyOutlivesTheWindowInPostgreSQL() async throws {
      _ = try await TestDatabase.withClient { (client: PostgresClient) async throws in
        let clock = ManualClock()
        let logins = PostgresRateLimiter(
          client: client, name: TestDatabase.uniqueName(), limit: 1, per: .seconds(60), time: .clock(clock),
          timeout: TestDatabase.timeout, localRefusals: false)
        let gate = RateLimitGate([RateLimitPolicy("login", logins, penalty: .seconds(600))])
        /// The request's wait: `nil` when granted.
        func login() async throws -> Duration? {
          guard case .refused(let refusal) = try await gate.decideRequest(key: "10.0.0.2").outcome else { return nil }
          return refusal.retryAfter
        }
        #expect(try await login() == nil)
        #expect(try await login() == .seconds(600))
        clock.advance(by: .seconds(120))
        #expect(try await login() == .seconds(480))
        clock.advance(by: .seconds(479))
        #expect(try await login() == .seconds(1))
        clock.advance(by: .seconds(1))
        #expect(try await login() == nil)
      }
    }
  }
#endif
