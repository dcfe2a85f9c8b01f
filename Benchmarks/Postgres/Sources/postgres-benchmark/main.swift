// Decisions per second and p50/p99 latency of PostgresRateLimiter with 1 and 4 connections, one hot key and
// 100,000 keys, beside `SELECT 1` through the same client (the floor: one round trip) and the in-process
// KeyedRateLimiter, all in one run. The server is RATELIMIT_POSTGRES_URL (scripts/with-postgres.sh).
import Foundation
import PostgresNIO
import RateLimit
@_spi(RateLimitIntegration) import RateLimitPostgres

guard let url = ProcessInfo.processInfo.environment["RATELIMIT_POSTGRES_URL"],
  var configuration = _loopbackConfiguration(url: url)
else {
  print("set RATELIMIT_POSTGRES_URL, or run through scripts/with-postgres.sh")
  exit(2)
}

/// Decisions each case makes (after a warm-up of a tenth as many).
let decisions = Int(ProcessInfo.processInfo.environment["DECISIONS"] ?? "") ?? 20_000

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
  let perTask = count / tasks
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
  let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  return Measurement(
    perSecond: Double(latencies.count) / seconds, p50: latencies[latencies.count / 2],
    p99: latencies[latencies.count * 99 / 100])
}

func microseconds(_ duration: Duration) -> String {
  let value = Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
  return value < 10 ? String(format: "%.2f", value) : String(format: "%.0f", value)
}

func row(_ label: String, _ m: Measurement, floor: Measurement?) -> String {
  let ratio = floor.map { String(format: "%.2f×", ratioOf(m.p50, $0.p50)) } ?? ""
  let perSecond = String(format: "%.0f", m.perSecond)
  return "| \(label) | \(perSecond) | \(microseconds(m.p50)) | \(microseconds(m.p99)) | \(ratio) |"
}

func ratioOf(_ a: Duration, _ b: Duration) -> Double {
  let x = Double(a.components.seconds) + Double(a.components.attoseconds) / 1e18
  let y = Double(b.components.seconds) + Double(b.components.attoseconds) / 1e18
  return x / y
}

let name = "bench-\(UInt32.random(in: 0...UInt32.max))"
let keys = (0..<100_000).map { "client-\($0)" }
print("| case | decisions/s | p50 µs | p99 µs | p50 over SELECT 1 |")
print("|---|---:|---:|---:|---:|")
for connections in [1, 4] {
  configuration.options.maximumConnections = connections
  configuration.options.minimumConnections = connections
  let client = PostgresClient(configuration: configuration)
  let running = Task { await client.run() }
  // "100 requests per minute per client": a hot key is refused after its first 100 (or 20, the burst); each of
  // the 100,000 keys is asked about once in a run, so it is granted.
  let limiter = PostgresRateLimiter(
    client: client, name: name, limit: 100, per: .seconds(60), timeout: .seconds(10))
  let bucket = PostgresRateLimiter(
    client: client, name: name + "-bucket", limit: 100, per: .seconds(60), burst: 20, timeout: .seconds(10))
  try await limiter.prepare()
  // Warm up: connections open, plans cached, the 100,000 keys' rows made.
  _ = try await measure(tasks: connections, count: decisions / 10) { _ in try await client.query("SELECT 1") }
  if connections == 1 {
    _ = try await measure(tasks: 1, count: 100_000) { index in _ = try await limiter.tryAcquire(for: keys[index]) }
    _ = try await measure(tasks: 1, count: 100_000) { index in _ = try await bucket.tryAcquire(for: keys[index]) }
  }
  print(
    "<!-- \(connections) connection(s): rows of the window's name after the warm-up: \(try await limiter.count()) -->")

  let floor = try await measure(tasks: connections, count: decisions) { _ in try await client.query("SELECT 1") }
  print(row("`SELECT 1`, \(connections) connection\(connections == 1 ? "" : "s")", floor, floor: floor))
  for (rule, shared) in [("window", limiter), ("bucket", bucket)] {
    let hot = try await measure(tasks: connections, count: decisions) { _ in
      _ = try await shared.tryAcquire(for: "hot")
    }
    print(row("\(rule), one hot key, \(connections) conn.", hot, floor: floor))
    let spread = try await measure(tasks: connections, count: decisions) { index in
      _ = try await shared.tryAcquire(for: keys[(index &* 7_919 &+ connections) % keys.count])
    }
    print(row("\(rule), 100,000 keys, \(connections) conn.", spread, floor: floor))
  }
  running.cancel()
}

let local = KeyedRateLimiter<String>(limit: 100, per: .seconds(60))
let inProcess = try await measure(tasks: 1, count: 1_000_000) { index in
  _ = local.tryAcquire(for: keys[index % keys.count])
}
print(row("in-process `KeyedRateLimiter`, 100,000 keys", inProcess, floor: nil))
exit(0)
