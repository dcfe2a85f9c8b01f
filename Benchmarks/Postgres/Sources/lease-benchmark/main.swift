// A lease of PostgresConcurrencyLimiter (acquire + release) beside `SELECT 1` through the same client, lone and 64
// tasks on 4 connections (SPEC 4.4, "Benchmarks"). The release is sent in the background (or rides on the next
// decision); the time measured is the caller's: `acquire` returns, `release()` returns. The server is
// RATELIMIT_POSTGRES_URL (scripts/with-postgres.sh):
//   bash scripts/with-postgres.sh swift run -c release --package-path Benchmarks/Postgres lease-benchmark
import Foundation
import Logging
import PostgresNIO
import RateLimit
@_spi(RateLimitIntegration) import RateLimitPostgres

guard let url = ProcessInfo.processInfo.environment["RATELIMIT_POSTGRES_URL"],
  var configuration = loopbackConfiguration(url: url)
else {
  print("set RATELIMIT_POSTGRES_URL, or run through scripts/with-postgres.sh")
  exit(2)
}

/// Leases each case takes (after a warm-up).
let count = Int(ProcessInfo.processInfo.environment["LEASES"] ?? "") ?? 10_000

struct Measurement {
  var perSecond: Double
  var p50: Duration
  var p99: Duration
}

/// Runs `operation` `count` times spread over `tasks` tasks at once; each call timed on its own.
func measure(tasks: Int, count: Int, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws
  -> Measurement
{
  let clock = ContinuousClock()
  let perTask = max(1, count / tasks)
  let start = clock.now
  let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
    for task in 0..<tasks {
      group.addTask {
        var latencies: [Duration] = []
        latencies.reserveCapacity(perTask)
        for index in 0..<perTask {
          let before = clock.now
          try await operation(task * perTask + index)
          latencies.append(clock.now - before)
        }
        return latencies
      }
    }
    return try await group.reduce(into: [Duration]()) { $0 += $1 }.sorted()
  }
  let elapsed = clock.now - start
  return Measurement(
    perSecond: Double(latencies.count) / seconds(elapsed), p50: latencies[latencies.count / 2],
    p99: latencies[latencies.count * 99 / 100])
}

func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func microseconds(_ duration: Duration) -> String { String(format: "%.0f", seconds(duration) * 1e6) }

func row(_ label: String, _ m: Measurement, floor: Measurement?) -> String {
  let ratio = floor.map { String(format: "%.2f×", seconds(m.p50) / seconds($0.p50)) } ?? ""
  let rate = floor.map { String(format: "%.2f×", m.perSecond / $0.perSecond) } ?? ""
  return "| \(label) | \(String(format: "%.0f", m.perSecond)) | \(microseconds(m.p50)) | \(microseconds(m.p99)) | "
    + "\(ratio) | \(rate) |"
}

print("| case | per second | p50 µs | p99 µs | p50 over `SELECT 1` | rate over `SELECT 1` |")
print("|---|---|---|---|---|---|")
for (tasks, connections) in [(1, 1), (64, 4)] {
  // One connection more: the limiter's listener (LISTEN for waiters' wake-ups) holds one of the pool's.
  configuration.options.maximumConnections = connections + 1
  configuration.options.minimumConnections = connections + 1
  let client = PostgresClient(configuration: configuration)
  let running = Task { await client.run() }
  // 64 keys of limit 1 000: never refused, so each lease is one decision and one release.
  let limiter = PostgresConcurrencyLimiter(
    client: client, name: "bench-lease-\(UInt32.random(in: 0...UInt32.max))", limit: 1_000, timeout: .seconds(10))
  try await limiter.prepare()
  _ = try await measure(tasks: tasks, count: count / 10) { _ in
    for try await _ in try await client.query("SELECT 1") {}
  }
  _ = try await measure(tasks: tasks, count: count / 10) { index in
    try await limiter.acquire(for: "k\(index % 64)").release()
  }
  let label = "\(tasks) task\(tasks == 1 ? "" : "s"), \(connections) conn."
  let floor = try await measure(tasks: tasks, count: count) { _ in
    for try await _ in try await client.query("SELECT 1") {}
  }
  print(row("`SELECT 1`, \(label)", floor, floor: floor))
  let leases = try await measure(tasks: tasks, count: count) { index in
    try await limiter.acquire(for: "k\(index % 64)").release()
  }
  print(row("lease (acquire + release), \(label)", leases, floor: floor))
  running.cancel()
}
