#if Postgres
  import Dispatch
  import Foundation
  import PostgresNIO
  import RateLimit
  @_spi(RateLimitIntegration) import RateLimitPostgres
  import Testing

  /// The throwaway server `scripts/with-postgres.sh` started: its URL, and the script that stops and starts it.
  enum TestDatabase {
    /// The decisions' timeout in tests of the rules: generous, since the suite runs tests side by side on a
    /// small machine (the availability tests use their own, short one).
    static let timeout = Duration.seconds(10)

    static var url: String? { ProcessInfo.processInfo.environment["RATELIMIT_POSTGRES_URL"] }

    /// The server's client configuration; records an issue (the suite must run beside a server) if there is none.
    static func configuration(sourceLocation: SourceLocation = #_sourceLocation) -> PostgresClient.Configuration? {
      guard let url, let configuration = loopbackConfiguration(url: url) else {
        Issue.record(
          "RATELIMIT_POSTGRES_URL is not set: run `bash scripts/with-postgres.sh swift test --traits Postgres`",
          sourceLocation: sourceLocation)
        return nil
      }
      return configuration
    }

    /// Runs `body` with a running client of the test server (or of `configuration`), then shuts the client down.
    static func withClient<Result: Sendable>(
      _ configuration: PostgresClient.Configuration? = nil, sourceLocation: SourceLocation = #_sourceLocation,
      _ body: @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result? {
      guard let configuration = configuration ?? self.configuration(sourceLocation: sourceLocation) else {
        return nil
      }
      let client = PostgresClient(configuration: configuration)
      let running = Task { await client.run() }
      defer { running.cancel() }
      return try await body(client)
    }

    /// A name no other test uses, so that tests never share keys.
    static func uniqueName(_ label: String = #function) -> String {
      "\(label)-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// The rows `ratelimit_keys` holds for `name`, counted directly.
    static func rows(of name: String, client: PostgresClient) async throws -> Int {
      let rows = try await client.query("SELECT count(*) FROM ratelimit_keys WHERE name = \(ByteBuffer(string: name))")
      for try await count in rows.decode(Int64.self) { return Int(count) }
      return 0
    }

    /// A server of the test's own (another throwaway directory and port), which it may stop and start without
    /// disturbing the other tests: `body` gets its configuration and a function that runs the script on it.
    static func withPrivateServer<Result: Sendable>(
      _ body:
        @Sendable (PostgresClient.Configuration, _ server: @Sendable (String) async -> Void) async throws -> Result
    ) async throws -> Result? {
      guard let script = ProcessInfo.processInfo.environment["RATELIMIT_POSTGRES_SCRIPT"] else {
        Issue.record("RATELIMIT_POSTGRES_SCRIPT is not set: run the suite through scripts/with-postgres.sh")
        return nil
      }
      let directory = "/tmp/ratelimit-postgres-private-\(UInt64.random(in: 0...UInt64.max))"
      @Sendable func server(_ command: String) async {
        // See ChildProcess.swift: the server the script starts lives on, and Foundation's Process would wait
        // for it.
        let status = await waitOffThePool {
          spawnAndWait(["/bin/bash", script, command], environment: ["RATELIMIT_POSTGRES_DIR": directory])
        }
        #expect(status == 0, "postgres-server.sh \(command)")
      }
      await server("start")
      let port = (try? String(contentsOfFile: directory + "/port", encoding: .utf8)) ?? ""
      let url = "postgres://postgres@127.0.0.1:\(port.trimmingCharacters(in: .whitespacesAndNewlines))/postgres"
      let result = await Swift.Result(catching: {
        guard let configuration = loopbackConfiguration(url: url) else { throw NoPrivateServer() }
        return try await body(configuration) { await server($0) }
      })
      await server("destroy")
      return try result.get()
    }
  }

  /// The private server did not start.
  struct NoPrivateServer: Error {}

  extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
      do { self = .success(try await body()) } catch { self = .failure(error) }
    }
  }

#endif
