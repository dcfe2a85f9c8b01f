// Decisions per second and p50/p99 latency of PostgresRateLimiter with 1, 16 and 64 concurrent tasks on 1 and 4
// connections, one hot key and 100,000 keys, beside `SELECT 1` through the same client (the floor: one round
// trip) and through one `PostgresConnection` without the pool; then a refused hot key answered locally, and the
// in-process KeyedRateLimiter, all in one run. The server is RATELIMIT_POSTGRES_URL (scripts/with-postgres.sh);
// Benchmarks/Postgres/server-time.sh measures the server's share with pgbench.
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

/// Decisions each case makes (after a warm-up).
let decisions = Int(ProcessInfo.processInfo.environment["DECISIONS"] ?? "") ?? 10_000

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

func microseconds(_ duration: Duration) -> String {
  let value = seconds(duration) * 1e6
  return value < 10 ? String(format: "%.2f", value) : String(format: "%.0f", value)
}

/// A table row: the case, decisions/s, p50, p99, p50 over the floor's, decisions/s over the floor's.
func row(_ label: String, _ m: Measurement, floor: Measurement?, statements: Int? = nil) -> String {
  let ratio = floor.map { String(format: "%.2f×", seconds(m.p50) / seconds($0.p50)) } ?? ""
  let rate = floor.map { String(format: "%.2f×", m.perSecond / $0.perSecond) } ?? ""
  let perStatement = statements.map { String(format: "%.1f", Double(decisions) / Double(max(1, $0))) } ?? ""
  return "| \(label) | \(String(format: "%.0f", m.perSecond)) | \(microseconds(m.p50)) | \(microseconds(m.p99)) | "
    + "\(ratio) | \(rate) | \(perStatement) |"
}

let name = "bench-\(UInt32.random(in: 0...UInt32.max))"
let keys = (0..<100_000).map { "client-\($0)" }
let taskCounts = [1, 16, 64]
print("| case | decisions/s | p50 µs | p99 µs | p50 over `SELECT 1` | rate over `SELECT 1` | decisions a statement |")
print("|---|---:|---:|---:|---:|---:|---:|")

// The pool's cost: `SELECT 1` on one connection without `PostgresClient`.
do {
  let connection = try await PostgresConnection.connect(
    configuration: .init(
      host: configuration.host ?? "127.0.0.1", port: configuration.port ?? 5432,
      username: configuration.username, password: configuration.password, database: configuration.database,
      tls: .disable),
    id: 1, logger: Logger(label: "benchmark"))
  let direct = try await measure(tasks: 1, count: decisions) { _ in
    for try await _ in try await connection.query("SELECT 1", logger: Logger(label: "benchmark")) {}
  }
  print(row("`SELECT 1`, one `PostgresConnection` (no pool)", direct, floor: nil))
  try await connection.closeGracefully()
}

for connections in [1, 4] {
  configuration.options.maximumConnections = connections
  configuration.options.minimumConnections = connections
  let client = PostgresClient(configuration: configuration)
  let running = Task { await client.run() }
  // "100 requests per minute per client": a hot key is refused after its first 100 (or 20, the burst); each of
  // the 100,000 keys is asked about once in a run, so it is granted. No local refusals: each decision is the
  // database's.
  let limiter = PostgresRateLimiter(
    client: client, name: name, limit: 100, per: .seconds(60), timeout: .seconds(10), localRefusals: false)
  let bucket = PostgresRateLimiter(
    client: client, name: name + "-bucket", limit: 100, per: .seconds(60), burst: 20, timeout: .seconds(10),
    localRefusals: false)
  try await limiter.prepare()
  try await bucket.prepare()
  // Warm up: connections open, plans cached, the 100,000 keys' rows made.
  _ = try await measure(tasks: connections, count: decisions / 10) { _ in
    for try await _ in try await client.query("SELECT 1") {}
  }
  if connections == 1 {
    _ = try await measure(tasks: 64, count: 100_000) { index in _ = try await limiter.tryAcquire(for: keys[index]) }
    _ = try await measure(tasks: 64, count: 100_000) { index in _ = try await bucket.tryAcquire(for: keys[index]) }
  }
  for tasks in taskCounts {
    let label = "\(tasks) task\(tasks == 1 ? "" : "s"), \(connections) conn."
    let floor = try await measure(tasks: tasks, count: decisions) { _ in
      for try await _ in try await client.query("SELECT 1") {}
    }
    print(row("`SELECT 1`, \(label)", floor, floor: floor))
    for (rule, shared) in [("window", limiter), ("bucket", bucket)] {
      var sent = shared.statementsSent
      let hot = try await measure(tasks: tasks, count: decisions) { _ in
        _ = try await shared.tryAcquire(for: "hot")
      }
      print(row("\(rule), one hot key, \(label)", hot, floor: floor, statements: shared.statementsSent - sent))
      // SPEC 4.2: a peek is one round trip, the decision made and rolled back.
      let peeked = try await measure(tasks: tasks, count: decisions) { _ in _ = try await shared.peek(for: "hot") }
      print(row("\(rule), peek of the hot key, \(label)", peeked, floor: floor))
      sent = shared.statementsSent
      let spread = try await measure(tasks: tasks, count: decisions) { index in
        _ = try await shared.tryAcquire(for: keys[(index &* 7_919 &+ tasks &* 31 &+ connections) % keys.count])
      }
      print(
        row("\(rule), 100,000 keys, \(label)", spread, floor: floor, statements: shared.statementsSent - sent))
    }
  }

  if connections == 4 {
    // A refused hot key, answered locally (the default): one statement refuses it, then none while it stays so.
    // On a pool that can spare a connection for listening (a pool of one keeps no local refusal).
    let refusing = PostgresRateLimiter(client: client, name: name + "-refused", limit: 1, per: .seconds(3_600))
    try await refusing.prepare()
    _ = try await refusing.tryAcquire(for: "hot")
    _ = try await refusing.tryAcquire(for: "hot")
    let sent = refusing.statementsSent
    let count = 1_000_000
    let local = try await measure(tasks: 1, count: count) { _ in _ = try await refusing.tryAcquire(for: "hot") }
    print(
      "| refused hot key, local refusals, 1 task (\(count) answers) | \(String(format: "%.0f", local.perSecond)) | "
        + "\(microseconds(local.p50)) | \(microseconds(local.p99)) | | | statements sent: "
        + "\(refusing.statementsSent - sent) |")
  }
  running.cancel()
}

let local = KeyedRateLimiter<String>(limit: 100, per: .seconds(60))
let inProcess = try await measure(tasks: 1, count: 1_000_000) { index in
  _ = local.tryAcquire(for: keys[index % keys.count])
}
print(row("in-process `KeyedRateLimiter`, 100,000 keys", inProcess, floor: nil))
exit(0)
