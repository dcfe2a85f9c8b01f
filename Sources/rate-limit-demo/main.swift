#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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

print(
  """
  interval T = \(options.interval) ticks, 1 tick = \(options.tickMilliseconds) ms, on the real DispatchClock \
  (T and maxWait are a tenth of a tick short, so real-time jitter cannot flip a gap of exactly T).
  A letter in "calls" is a call with that value; in a mode's line, a run with that value.

  """)
let lines = Demo(options: options).run()
print(Rendering.render(lines.map { ($0.name, $0.runs) }, ticks: options.lastTick))
