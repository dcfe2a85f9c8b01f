#if Hummingbird
  import Hummingbird
  import HummingbirdTesting
  import Logging
  import Metrics
  import MetricsTestKit
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import Synchronization
  import Testing

  /// SPEC 4.1: refusals are logged at `debug` on the request's logger, and swift-metrics counts granted and
  /// refused requests by policy (`ratelimit_requests`, dimensions `policy` and `decision`).
  @Suite struct ObservabilityTests {
    /// This test process's metrics backend: bootstrapped once (swift-metrics allows no second), by this suite
    /// only.
    static let metrics: TestMetrics = {
      let metrics = TestMetrics()
      MetricsSystem.bootstrap(metrics)
      return metrics
    }()

    @Test func refusalsAreLoggedAndEveryDecisionIsCounted() async throws {
      let metrics = Self.metrics
      let policy = "observed-\(UInt64.random(in: 0...UInt64.max))"
      let records = RecordedLogs()
      var logger = Logger(label: "test") { _ in RecordingHandler(records: records) }
      logger.logLevel = .debug
      let router = Router()
      router.group("api")
        .add(
          middleware: RateLimitMiddleware(
            RateLimitPolicy(policy, KeyedRateLimiter<String>(limit: 2, per: .seconds(60)))
          ) { _, _ in "client" }
        )
        .get { _, _ in "ok" }
      let app = Application(router: router, logger: logger)
      try await app.test(.router) { client in
        for _ in 0..<5 { try await client.execute(uri: "/api", method: .get) { _ in } }
      }
      let granted = try metrics.expectCounter("ratelimit_requests", [("policy", policy), ("decision", "granted")])
      let refused = try metrics.expectCounter("ratelimit_requests", [("policy", policy), ("decision", "refused")])
      #expect(granted.totalValue == 2)
      #expect(refused.totalValue == 3)
      let refusals = records.entries.filter { $0.message == "rate limit: request refused" }
      #expect(refusals.count == 3)
      #expect(refusals.allSatisfy { $0.level == .debug })
      #expect(refusals.first?.metadata["ratelimit.policy"] == .string(policy))
      #expect(refusals.first?.metadata["ratelimit.key"] == "client")
    }

    /// SPEC 4.2: every limited request's decision is timed (`ratelimit_decision_duration`, one value each), and
    /// the decisions a fallback answered are counted by policy (`ratelimit_fallback`).
    @Test func decisionsAreTimedAndFallbacksCounted() async throws {
      let metrics = Self.metrics
      let policy = "fallback-\(UInt64.random(in: 0...UInt64.max))"
      let router = Router()
      router.add(middleware: RateLimitMiddleware(RateLimitPolicy(policy, FallbackLimiter())) { _, _ in "client" })
      router.get("/") { _, _ in "ok" }
      let before = (try? metrics.expectTimer("ratelimit_decision_duration"))?.values.count ?? 0
      try await Application(router: router).test(.router) { client in
        for _ in 0..<4 { try await client.execute(uri: "/", method: .get) { #expect($0.status == .ok) } }
      }
      let fallback = try metrics.expectCounter("ratelimit_fallback", [("policy", policy)])
      #expect(fallback.totalValue == 4)
      let timer = try metrics.expectTimer("ratelimit_decision_duration")
      // Other suites of this process time their requests too: at least these four.
      #expect(timer.values.count >= before + 4)
      #expect(timer.values.allSatisfy { $0 >= 0 })
    }
  }

  /// A store answered by its `WhenUnavailable` policy on every request, as a `PostgresRateLimiter` with its
  /// database away and `.allow`.
  struct FallbackLimiter: SharedKeyedLimiter {
    static let decision = RateLimitDecision(
      isGranted: true, limit: 10, window: .seconds(10), remaining: 9, resetAfter: .seconds(1), retryAfter: nil,
      isFallback: true)
    func tryAcquire(_ permits: Int, for key: String) async throws -> Bool { true }
    func retryAfter(_ permits: Int, for key: String) async throws -> Duration? { .zero }
    func decide(_ permits: Int, for key: String) async throws -> RateLimitDecision { Self.decision }
  }

  /// Log entries, kept for a test to read.
  final class RecordedLogs: Sendable {
    struct Entry: Sendable {
      var level: Logger.Level
      var message: String
      var metadata: Logger.Metadata
    }

    private let storage = Mutex<[Entry]>([])

    var entries: [Entry] { storage.withLock { $0 } }

    func append(_ entry: Entry) { storage.withLock { $0.append(entry) } }
  }

  /// A log handler that records every entry at or above its level.
  struct RecordingHandler: LogHandler {
    let records: RecordedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      records.append(
        RecordedLogs.Entry(
          level: event.level, message: event.message.description,
          metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }
  }
#endif
