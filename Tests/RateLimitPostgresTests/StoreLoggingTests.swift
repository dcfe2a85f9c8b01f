#if Postgres
  import Foundation
  import Logging
  import PostgresNIO
  import RateLimit
  import RateLimitPostgres
  import Testing

  /// A log handler that keeps every message, for the tests.
  final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    // @unchecked: `messages` is read and written under `lock` only; `metadata` and `logLevel` are set before the
    // logger is handed to the limiter and only read after.
    private let lock = NSLock()
    private var recorded: [(Logger.Level, String)] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      lock.withLock { recorded.append((event.level, "\(event.message)")) }
    }

    var messages: [(Logger.Level, String)] { lock.withLock { recorded } }

    func count(containing text: String) -> Int { messages.filter { $0.1.contains(text) }.count }
  }

  /// SPEC 4.2 "one house", item 5: the store logs the swift-log way (a logger given, or the task-local one): a
  /// schema prepared, revocations dropped at `debug`, an outage's start at `warning` and its end at `info` (SPEC
  /// 4.3.1; they were at `debug`); and no background task keeps a released limiter alive.
  @Suite struct StoreLoggingTests {
    @Test func anOutageIsLoggedOnceWhenItStartsAndOnceWhenItEnds() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let handler = RecordingLogHandler()
          let logger = Logger(label: "test") { _ in handler }
          let limiter = PostgresRateLimiter(
            client: client, name: "logged", limit: 1_000, per: .seconds(60), whenUnavailable: .allow,
            timeout: .milliseconds(250), localRefusals: false, logger: logger)
          try await limiter.prepare()
          #expect(handler.count(containing: "schema ready") == 1)
          await server("stop")
          for index in 0..<5 { #expect(try await limiter.decide(for: "k\(index)").isFallback) }
          #expect(handler.count(containing: "cannot answer") == 1)
          await server("start")
          var answered = false
          for _ in 0..<200 where !answered {
            answered = try await !limiter.decide(for: "k").isFallback
            if !answered { try await Task.sleep(for: .milliseconds(25)) }
          }
          #expect(answered)
          #expect(handler.count(containing: "answers again") == 1)
          // SPEC 4.3.1, "outages are visible": the start at `warning`, the end at `info`, the rest at `debug`.
          for (level, message) in handler.messages {
            let expected: Logger.Level =
              message.contains("cannot answer") ? .warning : message.contains("answers again") ? .info : .debug
            #expect(level == expected, "\(message)")
          }
        }
      }
    }

    /// A limiter whose decisions left revocations to send (its database away) is freed once released: 4.1's
    /// revocation task kept it, and retried, for up to ten minutes.
    @Test func revocationsNeverKeepAReleasedLimiterAlive() async throws {
      _ = try await TestDatabase.withPrivateServer { configuration, server in
        try await TestDatabase.withClient(configuration) { client in
          let handler = RecordingLogHandler()
          weak var released: PostgresRateLimiter?
          do {
            let limiter = PostgresRateLimiter(
              client: client, name: "released", limit: 10, per: .seconds(60), whenUnavailable: .allow,
              timeout: .milliseconds(250), logger: Logger(label: "test") { _ in handler })
            released = limiter
            try await limiter.prepare()
            await server("stop")
            // Statements handed to the client that failed: their bookings are to be revoked.
            for index in 0..<3 { #expect(try await limiter.decide(for: "k\(index)").isFallback) }
          }
          for _ in 0..<300 where released != nil { try await Task.sleep(for: .milliseconds(10)) }
          #expect(released == nil, "the limiter is still alive")
          for _ in 0..<300 where handler.count(containing: "revocations dropped") == 0 {
            try await Task.sleep(for: .milliseconds(10))
          }
          #expect(handler.count(containing: "revocations dropped: the limiter was released") == 1)
        }
      }
    }
  }
#endif
