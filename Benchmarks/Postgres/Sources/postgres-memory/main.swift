// Does the process grow with the number of queries? Resident memory after 0, 50,000, 100,000 and 200,000
// `PostgresRateLimiter` decisions (prepared statements through `PostgresClient.execute`), then as many `SELECT 1`s
// through `PostgresClient.query` (the pool), then on one `PostgresConnection` (no pool), one after another, in
// one process. The server is RATELIMIT_POSTGRES_URL
// (scripts/with-postgres.sh):
//
//   bash scripts/with-postgres.sh swift run -c release --package-path Benchmarks/Postgres postgres-memory
import Foundation
import Logging
import PostgresNIO
@_spi(RateLimitIntegration) import RateLimitPostgres

guard let url = ProcessInfo.processInfo.environment["RATELIMIT_POSTGRES_URL"],
  let configuration = loopbackConfiguration(url: url)
else {
  print("set RATELIMIT_POSTGRES_URL, or run through scripts/with-postgres.sh")
  exit(2)
}

/// Resident memory, in MB, from /proc/self/statm.
func residentMB() -> Double {
  guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
  let pages = Double(statm.split(separator: " ")[1]) ?? 0
  return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

let checkpoints = [0, 50_000, 100_000, 200_000]

func measure(_ label: String, _ query: @Sendable () async throws -> Void) async throws {
  var row = "| \(label) |"
  var done = 0
  for checkpoint in checkpoints {
    while done < checkpoint {
      try await query()
      done += 1
    }
    row += String(format: " %.1f |", residentMB())
  }
  print(row)
}

let logger = Logger(label: "memory")
print("| 200,000 one after another | RSS MB at 0 | 50,000 | 100,000 | 200,000 |")
print("|---|---:|---:|---:|---:|")
let client = PostgresClient(configuration: configuration)
let running = Task { await client.run() }
let limiter = PostgresRateLimiter(
  client: client, name: "memory-\(UInt32.random(in: 0...UInt32.max))", limit: 1_000_000_000, per: .seconds(1),
  burst: 1_000_000_000, timeout: .seconds(10))
try await limiter.prepare()
try await measure("`PostgresRateLimiter.tryAcquire`, one key") {
  _ = try await limiter.tryAcquire(for: "key")
}
try await measure("`SELECT 1` through `PostgresClient`") {
  for try await _ in try await client.query("SELECT 1") {}
}
let connection = try await PostgresConnection.connect(
  configuration: .init(
    host: configuration.host ?? "127.0.0.1", port: configuration.port ?? 5432, username: configuration.username,
    password: configuration.password, database: configuration.database, tls: .disable),
  id: 1, logger: logger)
try await measure("`SELECT 1` on one `PostgresConnection`") {
  for try await _ in try await connection.query("SELECT 1", logger: logger) {}
}
try await connection.closeGracefully()

running.cancel()
exit(0)
