// A hello-world Hummingbird server on 127.0.0.1 for wrk (Benchmarks/Postgres/http.sh), one variant a process,
// each serving `/hello`: without a middleware (`plain`), behind one that does nothing (`noop`) or only adds two
// constant fields (`headers`), behind RateLimitMiddleware over a `KeyedRateLimiter` (`keyed`) or, given
// RATELIMIT_POSTGRES_URL, over a `PostgresRateLimiter` (`postgres`). Every limit is far above what wrk can send,
// so every request is granted and pays the whole path: the decision and the response's header fields.
//
//   http-benchmark <port> <variant>
//   http-benchmark --responder <variant> <requests>   the router alone, on this thread, for callgrind
//   http-benchmark --gate                              the middleware's own work, without a framework
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import RateLimit
import RateLimitHTTP
import RateLimitHummingbird
@_spi(RateLimitIntegration) import RateLimitPostgres

/// A request context with the client's address, for the middleware.
struct Context: RequestContext, RemoteAddressRequestContext {
  var coreContext: CoreRequestContextStorage
  let remoteAddress: SocketAddress?

  init(source: Source) {
    self.coreContext = .init(source: source)
    self.remoteAddress = source.channel.remoteAddress
  }
}

/// A task executor that runs every job on the thread that calls `run()`.
final class ThisThread: TaskExecutor, @unchecked Sendable {
  // @unchecked Sendable: `jobs` is touched only by `run()`'s thread: the jobs it runs are the only ones that
  // enqueue more (nothing else has this executor).
  private var jobs: [UnownedJob] = []

  func enqueue(_ job: consuming ExecutorJob) { jobs.append(UnownedJob(job)) }

  func run() -> Never {
    while true {
      guard !jobs.isEmpty else { fatalError("no job left, and the loop did not finish") }
      jobs.removeFirst().runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}

extension Context {
  /// A context for `--responder`, where there is no channel.
  init(remoteAddress: SocketAddress, logger: Logger) {
    self.coreContext = .init(source: LoggerSource(logger: logger))
    self.remoteAddress = remoteAddress
  }

  struct LoggerSource: RequestContextSource {
    let logger: Logger
  }
}

/// A middleware that does nothing: what any middleware costs in Hummingbird.
struct PassThrough: RouterMiddleware {
  var fields = false

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    var response = try await next(request, context)
    if fields {
      response.headers[.rateLimitPolicy] = #""keyed";q=1000000000;w=1"#
      response.headers[.rateLimit] = #""keyed";r=999999999;t=1"#
    }
    return response
  }
}

extension HTTPField.Name {
  static let rateLimitPolicy = Self("RateLimit-Policy")!
  static let rateLimit = Self("RateLimit")!
}

// `http-benchmark --gate`: the middleware's own work for one request, without a server (the key from the peer's
// address, the decision, the two header fields on a response), in nanoseconds a request.
if CommandLine.arguments.dropFirst().first == "--gate" {
  let limiter = KeyedRateLimiter<String>(limit: 1_000_000_000, per: .seconds(1), burst: 1_000_000_000)
  let gate = RateLimitGate([RateLimitPolicy("keyed", limiter)])
  let requests = 1_000_000
  var kept = 0
  let start = ContinuousClock.now
  for _ in 0..<requests {
    // What the middleware does for a granted request from an IPv4 peer, through the public API (the middleware
    // itself takes a synchronous path for one in-process policy: `--responder` counts that one).
    guard let key = clientKey(address: "127.0.0.1"), case .granted(let fields) = try await gate.decide(key: key)
    else { fatalError("refused") }
    var headers = HTTPFields()
    for field in fields {
      if let name = HTTPField.Name(field.name) { headers.append(HTTPField(name: name, value: field.value)) }
    }
    kept &+= headers.count
  }
  let (seconds, attoseconds) = ((ContinuousClock.now - start) / requests).components
  let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  print("the middleware's work: \(nanoseconds) ns a request (\(kept / requests) header fields)")
  exit(0)
}

// Each variant is a server of its own with one route, `/hello`: a route found among others costs more the later
// it was added (Hummingbird compares it with those before it), which is not the middleware's cost.
let variants = ["plain", "noop", "headers", "keyed", "select", "postgres"]
let variant = CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : ""
guard variants.contains(variant) else {
  print("usage: http-benchmark <port> <variant> | --gate | --responder <variant> <requests>; variants: \(variants)")
  exit(2)
}
let router = Router(context: Context.self)
switch variant {
case "plain": router.get("hello") { _, _ in "hello\n" }
// The framework's own share: the same route behind a middleware that only passes the request on; and what the
// two header fields cost by themselves (the same bytes as `keyed`'s, constant).
case "noop": router.group().add(middleware: PassThrough()).get("hello") { _, _ in "hello\n" }
case "headers": router.group().add(middleware: PassThrough(fields: true)).get("hello") { _, _ in "hello\n" }
case "keyed":
  let keyed = KeyedRateLimiter<String>(limit: 1_000_000_000, per: .seconds(1), burst: 1_000_000_000)
  router.group().add(middleware: RateLimitMiddleware(RateLimitPolicy("keyed", keyed))).get("hello") { _, _ in
    "hello\n"
  }
case "select":
  // The same policy and key, chosen per request (SPEC 4.2: within 10 % of the fixed form).
  let keyed = KeyedRateLimiter<String>(limit: 1_000_000_000, per: .seconds(1), burst: 1_000_000_000)
  let policy = RateLimitPolicy("keyed", keyed)
  router.group()
    .add(
      middleware: RateLimitMiddleware { _, context in
        let address = context.remoteAddress?.ipAddress ?? ""
        return .limit(clientKey(address: address) ?? address, policy)
      }
    )
    .get("hello") { _, _ in "hello\n" }
default:
  guard let url = ProcessInfo.processInfo.environment["RATELIMIT_POSTGRES_URL"],
    var configuration = loopbackConfiguration(url: url)
  else {
    print("the postgres variant needs RATELIMIT_POSTGRES_URL")
    exit(2)
  }
  configuration.options.maximumConnections = 4
  configuration.options.minimumConnections = 4
  let client = PostgresClient(configuration: configuration)
  Task { await client.run() }
  let shared = PostgresRateLimiter(
    client: client, name: "http-\(UInt32.random(in: 0...UInt32.max))", limit: 1_000_000_000, per: .seconds(1),
    burst: 1_000_000_000)
  try await shared.prepare()
  router.group().add(middleware: RateLimitMiddleware(RateLimitPolicy("shared", shared))).get("hello") { _, _ in
    "hello\n"
  }
}
// `http-benchmark --responder <route> <requests>`: the router's whole handling of one route, without sockets (a
// request in, a response out, in a loop, all on this thread: valgrind 3.19 cannot follow a thread being made),
// for callgrind to count each route; their difference is the middleware's whole cost but for its two fields'
// bytes on the wire.
if CommandLine.arguments.dropFirst().first == "--responder" {
  guard CommandLine.arguments.count == 4, let requests = Int(CommandLine.arguments[3]) else { exit(2) }
  let responder = router.buildResponder()
  let peer = try SocketAddress(ipAddress: "127.0.0.1", port: 40_000)
  let logger = Logger(label: "responder")
  let head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/hello")
  let executor = ThisThread()
  Task(executorPreference: executor) {
    var fields = 0
    for _ in 0..<requests {
      let response = try await responder.respond(
        to: Request(head: head, body: RequestBody(buffer: ByteBuffer())),
        context: Context(remoteAddress: peer, logger: logger))
      guard response.status == .ok else { fatalError("\(response.status)") }
      fields &+= response.headers.count
    }
    print("\(requests) requests, \(fields / requests) header fields each")
    exit(0)
  }
  executor.run()
}

guard let port = Int(CommandLine.arguments[1]) else {
  print("usage: http-benchmark <port> <variant>")
  exit(2)
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
print("ready")
try await app.runService()
