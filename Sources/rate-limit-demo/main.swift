import RateLimitDiagrams

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file could not be written.
struct WriteError: Error, CustomStringConvertible {
  let path: String
  var description: String { "cannot write \(path)" }
}

/// Writes `text` to `path`, replacing it (without Foundation, like the library).
func write(_ text: String, to path: String) throws(WriteError) {
  guard let file = fopen(path, "w") else { throw WriteError(path: path) }
  defer { fclose(file) }
  var text = text
  let written = text.withUTF8 { fwrite($0.baseAddress, 1, $0.count, file) }
  guard written == text.utf8.count else { throw WriteError(path: path) }
}

/// Exits (2) saying that `option` needs the package trait `trait`.
func needsTrait(_ trait: String, _ option: String, _ argument: String) -> Never {
  var line =
    "rate-limit-demo: \(option) needs the \(trait) trait: swift run --traits \(trait) rate-limit-demo \(option) \(argument)\n"
  line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
  exit(2)
}

// One limit across a fleet (PostgreSQL): built with the Postgres trait only.
if let first = CommandLine.arguments.dropFirst().first, first.hasPrefix("--fleet") {
  #if Postgres
    exit(await FleetDemo.run(Array(CommandLine.arguments.dropFirst())))
  #else
    needsTrait("Postgres", first, "<postgres-url>")
  #endif
}

// Leases across a fleet (PostgreSQL), for the tests: built with the Postgres trait only.
#if Postgres
  if CommandLine.arguments.dropFirst().first == "--lease-worker" {
    exit(await LeaseDemo.run(Array(CommandLine.arguments.dropFirst())))
  }
#endif

// A rate-limited HTTP route on loopback (Hummingbird): built with the Hummingbird trait only.
if let first = CommandLine.arguments.dropFirst().first, first == "--serve" {
  #if Hummingbird
    exit(await ServeDemo.run(Array(CommandLine.arguments.dropFirst())))
  #else
    needsTrait("Hummingbird", first, "<port>")
  #endif
}

let options: Options
do {
  switch try Options.parse(Array(CommandLine.arguments.dropFirst())) {
  case .help:
    print(Options.usage)
    exit(0)
  case .run(let parsed):
    options = parsed
  }
} catch {
  var line = "rate-limit-demo: error: \(error.message)\n"
  line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
  exit(2)
}

if let directory = options.svgDirectory {
  do {
    for scenario in Scenario.all {
      let svg = MarbleDiagram.svg(scenario, outcomes: await Player.play(scenario))
      try write(svg, to: directory + "/" + scenario.id + ".svg")
    }
    exit(0)
  } catch {
    var line = "rate-limit-demo: error: \(error)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
  }
}

print(
  """
  interval T = \(options.interval) ticks, 1 tick = \(options.tickMilliseconds) ms, on the real DispatchClock \
  (T and maxWait are a tenth of a tick short, so real-time jitter cannot flip a gap of exactly T).
  A letter in "calls" is a call with that value; in a mode's line, a run with that value.

  """)
let demo = Demo(options: options)
let lines = demo.run()
print(Rendering.render(lines.map { ($0.name, $0.events) }, ticks: options.lastTick))
print(
  """

  Reducing: `reducing: { $0 += $1 }` combines the calls a window holds, so a run delivers all of them.

  Async actions: a leading throttler whose action takes T + 2 ticks, once per Overlap policy. "starts" shows
  when each run's action began, "ends" when it returned; a capital letter: it returned early because its task
  was cancelled.

  """)
let (asyncLines, asyncLastTick) = demo.runAsync()
print(Rendering.render(asyncLines.map { ($0.name, $0.events) }, ticks: asyncLastTick))
await PermitDemo.run()
