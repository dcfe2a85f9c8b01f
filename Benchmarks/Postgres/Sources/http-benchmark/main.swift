// A hello-world Hummingbird server on 127.0.0.1 for wrk (Benchmarks/Postgres/http.sh): the same route without
// the middleware, with it over a `KeyedRateLimiter`, and, given RATELIMIT_POSTGRES_URL, over a
// `PostgresRateLimiter`. Every limit is far above what wrk can send, so every request is granted and pays the
// whole path: the decision and the response's header fields.
//
//   http-benchmark <port>
import Foundation
import HTTPTypes
import Hummingbird
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
  let policyField = gate._inProcessPolicyField.map { HTTPField(name: .rateLimitPolicy, value: $0) }
  for _ in 0..<requests {
    // What the middleware does for a granted request from an IPv4 peer.
    let key = _clientKey(ipv4: 0x7F00_0001)
    guard case .granted(let state)? = gate._decideInProcess(key: key) else { fatalError("refused") }
    var headers = HTTPFields()
    if let policyField { headers.append(policyField) }
    if let state { headers.append(HTTPField(name: .rateLimit, value: state)) }
    kept &+= headers.count
  }
  let (seconds, attoseconds) = ((ContinuousClock.now - start) / requests).components
  let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  print("the middleware's work: \(nanoseconds) ns a request (\(kept / requests) header fields)")
  exit(0)
}

guard CommandLine.arguments.count == 2, let port = Int(CommandLine.arguments[1]) else {
  print("usage: http-benchmark <port> | --gate")
  exit(2)
}
let router = Router(context: Context.self)
router.get("plain") { _, _ in "hello\n" }
// The framework's own share: the same route behind a middleware that only passes the request on; and what the
// two header fields cost by themselves (the same bytes as /keyed's, constant).
router.group("noop").add(middleware: PassThrough()).get { _, _ in "hello\n" }
router.group("headers").add(middleware: PassThrough(fields: true)).get { _, _ in "hello\n" }
let keyed = KeyedRateLimiter<String>(limit: 1_000_000_000, per: .seconds(1), burst: 1_000_000_000)
router.group("keyed").add(middleware: RateLimitMiddleware(RateLimitPolicy("keyed", keyed)))
  .get { _, _ in "hello\n" }
if let url = ProcessInfo.processInfo.environment["RATELIMIT_POSTGRES_URL"],
  var configuration = _loopbackConfiguration(url: url)
{
  configuration.options.maximumConnections = 4
  configuration.options.minimumConnections = 4
  let client = PostgresClient(configuration: configuration)
  Task { await client.run() }
  let shared = PostgresRateLimiter(
    client: client, name: "http-\(UInt32.random(in: 0...UInt32.max))", limit: 1_000_000_000, per: .seconds(1),
    burst: 1_000_000_000)
  try await shared.prepare()
  router.group("postgres").add(middleware: RateLimitMiddleware(RateLimitPolicy("shared", shared)))
    .get { _, _ in "hello\n" }
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
print("ready")
try await app.runService()
