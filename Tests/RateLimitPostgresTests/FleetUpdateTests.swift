#if Postgres
  import Foundation
  import PostgresNIO
  import RateLimit
  import RateLimitPostgres
  import Testing

  /// SPEC 4.2: `update` on OS processes sharing one name (the demo's `--fleet-update-worker`, built beside this
  /// test): every limiter of the name follows the new limit from its next decision, no key loses its bookings,
  /// and a process started later with the old parameters decides by the stored rule, with a warning naming both.
  @Suite struct FleetUpdateTests {
    /// Runs the demo with `arguments` (bounded in time); its exit status, standard output and standard error.
    static func run(_ arguments: [String]) async -> (Int32, String, String) {
      let demo = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("rate-limit-demo").path
      return await RateLimitPostgresTests.run([demo] + arguments, atMost: .seconds(120))
    }

    @Test func anUpdateReachesEveryProcessOfTheName() async throws {
      guard let url = TestDatabase.url else {
        _ = TestDatabase.configuration()
        return
      }
      _ = try await TestDatabase.withClient { client in
        let name = TestDatabase.uniqueName()
        // This process: 2 per minute, prepared before the update, and key "k" full.
        let here = PostgresRateLimiter(
          client: client, name: name, limit: 2, per: .seconds(60), timeout: TestDatabase.timeout,
          localRefusals: false)
        #expect(try await here.decide(for: "k").isGranted)
        #expect(try await here.decide(for: "k").isGranted)
        // Another process, made with the same parameters: refused on "k", then raises the limit to 3 for all.
        let (status, output, errors) = await Self.run(["--fleet-update-worker", url, name, "2", "60000", "3"])
        #expect(status == 0, "\(errors)")
        #expect(output == "refused\ngranted\n")
        // This process decides by the stored rule from its next decision: "k" kept its 3 bookings, a new key
        // gets 3.
        let refused = try await here.decide(for: "k")
        #expect(!refused.isGranted && refused.limit == 3 && here.limit == 3)
        for _ in 0..<3 { #expect(try await here.decide(for: "other").isGranted) }
        #expect(try await !here.decide(for: "other").isGranted)
        // A third process started with the old parameters (a rolling restart after the update) decides by the
        // stored rule and says so once, naming both (SPEC 4.3.1; 4.0 trapped: a crash loop): "k" holds 3 of 3.
        let (restartedStatus, restartedOutput, message) = await Self.run(
          ["--fleet-update-worker", url, name, "2", "60000", "0"])
        #expect(restartedStatus == 0, "\(message)")
        #expect(restartedOutput.split(separator: "\n").last == "refused", "\(restartedOutput)")
        let said = restartedOutput + message
        #expect(said.contains("is stored with a sliding window of 3 per 60.0 seconds"), "\(said)")
        #expect(said.contains("this limiter was made with a sliding window of 2 per 60.0 seconds"), "\(said)")
      }
    }
  }
#endif
