#if Hummingbird
  import Foundation
  import HTTPTypes
  import Hummingbird
  import HummingbirdTesting
  import MetricsTestKit
  import NIOCore
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import Synchronization
  import MiddlewareTestSupport
  import Testing

  /// A concurrency limiter that counts its decisions: whether a request took a lease at all.
  final class CountedLeases: SharedConcurrencyLimiter {
    let base: KeyedConcurrencyLimiter<String>
    let decisions = Mutex(0)
    init(limit: Int) { base = KeyedConcurrencyLimiter<String>(limit: limit) }
    var limit: Int { base.limit }
    func tryAcquire(_ permits: Int, for key: String) async throws -> Lease? { base.tryAcquire(permits, for: key) }
    func decide(_ permits: Int, for key: String) async throws -> LeaseDecision {
      decisions.withLock { $0 += 1 }
      return base.decide(permits, for: key)
    }
    func inUse(for key: String) async throws -> Int { base.inUse(for: key) }
  }

  /// A request of its own while another is open: through the router, or with curl on a connection of its own
  /// (the live clients keep one connection, which an open stream holds). The status and the fields by name.
  func probe(_ client: some TestClientProtocol, _ path: String) async throws -> (
    status: Int, fields: [String: String], body: String
  ) {
    guard let port = client.port else {
      return try await client.execute(uri: path, method: .get) { response in
        var fields: [String: String] = [:]
        for field in response.headers { fields[field.name.canonicalName] = field.value }
        return (Int(response.status.code), fields, String(buffer: response.body))
      }
    }
    let text = try await curl(["-s", "-i", "--max-time", "10", "http://localhost:\(port)\(path)"])
    let parts = text.replacingOccurrences(of: "\r", with: "").components(separatedBy: "\n\n")
    let lines = parts[0].split(separator: "\n").map(String.init)
    let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
    var fields: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return (status, fields, parts.dropFirst().joined(separator: "\n\n"))
  }

  /// SPEC 4.4, "The middleware: the rules added": a concurrency policy through Hummingbird's router, its live
  /// client and AsyncHTTPClient on a loopback port, and curl for a client that goes away.
  @Suite struct HummingbirdConcurrencyPolicyTests {
    static let policyField = #""inflight";q=1;qu="concurrent-requests""#

    /// The routes behind one middleware keyed "team": `/events` streams three server-sent events, the last two
    /// once `latch` opens; `/quick` answers at once; `/fail` throws; `/endless` streams an event every 20 ms for
    /// 10 s, counting them in `sent`; `/slow` sleeps 20 ms, counting the requests in it at once in `running`.
    static func app(
      _ policies: [RateLimitPolicy], latch: Latch = Latch(), sent: Shared<Int>? = nil,
      running: Shared<(now: Int, most: Int)>? = nil, refusal: RateLimitRefusalBody = .text
    ) -> some ApplicationProtocol {
      let router = Router()
      let api = router.group("api").add(
        middleware: RateLimitMiddleware(refusal: refusal) { _, _ in .limit("team", policies) })
      api.get("events") { _, _ -> Response in
        Response(
          status: .ok, headers: [.contentType: "text/event-stream"],
          body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "data: 1\n\n"))
            await latch.wait()
            try await writer.write(ByteBuffer(string: "data: 2\n\n"))
            try await writer.write(ByteBuffer(string: "data: 3\n\n"))
            try await writer.finish(nil)
          })
      }
      api.get("quick") { _, _ in "ok" }
      api.get("fail") { _, _ -> String in throw HTTPError(.badGateway) }
      api.get("endless") { _, _ -> Response in
        Response(
          status: .ok, headers: [.contentType: "text/event-stream"],
          body: ResponseBody { writer in
            for index in 1...500 {
              try await writer.write(ByteBuffer(string: "data: \(index)\n\n"))
              sent?.withLock { $0 = index }
              try await Task.sleep(for: .milliseconds(20))
            }
            try await writer.finish(nil)
          })
      }
      api.get("slow") { _, _ -> String in
        running?.withLock {
          $0.now += 1; $0.most = max($0.most, $0.now)
        }
        try await Task.sleep(for: .milliseconds(20))
        running?.withLock { $0.now -= 1 }
        return "ok"
      }
      return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    static func setup(_ kind: String) -> TestingSetup {
      kind == "router" ? .router : kind == "live" ? .live : .ahc(.http)
    }

    /// A streamed body holds its lease until its last byte: a second request of the key is refused (429,
    /// `Retry-After: 1`, the exact fields) while the stream is open, and granted once it ended.
    @Test(arguments: ["router", "live", "ahc"])
    func aStreamedBodyHoldsItsLeaseUntilItsLastByte(client kind: String) async throws {
      let inFlight = KeyedConcurrencyLimiter<String>(limit: 1)
      let latch = Latch()
      let app = Self.app([RateLimitPolicy("inflight", concurrency: inFlight)], latch: latch)
      try await app.test(Self.setup(kind)) { client in
        async let streamed = client.execute(uri: "/api/events", method: .get) { response in
          (response.status, String(buffer: response.body), response.headers[HTTPField.Name("RateLimit")!])
        }
        // After the `async let`s: leaving the scope opens the latch first, then awaits them (a failed
        // expectation that throws would otherwise wait forever for streams waiting on the latch).
        defer { latch.open() }
        try await eventually("the stream holds its lease") { inFlight.inUse(for: "team") == 1 }
        let refused = try await probe(client, "/api/quick")
        #expect(refused.status == 429)
        #expect(refused.fields["retry-after"] == "1")
        #expect(refused.fields["ratelimit-policy"] == Self.policyField)
        #expect(refused.fields["ratelimit"] == #""inflight";r=0"#)
        #expect(inFlight.inUse(for: "team") == 1)
        latch.open()
        let (status, body, state) = try await streamed
        #expect(status == .ok)
        #expect(body == "data: 1\n\ndata: 2\n\ndata: 3\n\n")
        #expect(state == #""inflight";r=0"#)
        // Released before the end of the body was sent: the client saw the end, so the lease is free.
        #expect(inFlight.inUse(for: "team") == 0)
        let granted = try await probe(client, "/api/quick")
        #expect(granted.status == 200)
        #expect(granted.fields["ratelimit-policy"] == Self.policyField)
        #expect(granted.fields["ratelimit"] == #""inflight";r=0"#)
      }
      #expect(inFlight.inUse(for: "team") == 0)
      #expect(inFlight.count == 0)
    }

    /// A client that goes away mid-stream (curl, after two events) releases the lease: the next
    /// write fails, and the stream stops.
    @Test func aClientThatGoesAwayMidStreamReleasesItsLease() async throws {
      let inFlight = KeyedConcurrencyLimiter<String>(limit: 1)
      let sent = Shared(0)
      let app = Self.app([RateLimitPolicy("inflight", concurrency: inFlight)], sent: sent)
      try await app.test(.live) { client in
        let port = try #require(client.port)
        let output = try await curlLeaving(after: 18, "http://localhost:\(port)/api/endless")
        #expect(output == "data: 1\n\ndata: 2\n\n")
        try await eventually("the lease of a client gone is released") { inFlight.inUse(for: "team") == 0 }
        try await client.execute(uri: "/api/quick", method: .get) { #expect($0.status == .ok) }
      }
      #expect(sent.withLock { $0 } < 500)
    }

    /// A route that throws releases the lease at once (the error answered as Hummingbird answers it).
    @Test(arguments: ["router", "live"])
    func aThrowingRouteReleasesAtOnce(client kind: String) async throws {
      let inFlight = KeyedConcurrencyLimiter<String>(limit: 1)
      let app = Self.app([RateLimitPolicy("inflight", concurrency: inFlight)])
      try await app.test(Self.setup(kind)) { client in
        try await client.execute(uri: "/api/fail", method: .get) { #expect($0.status == .badGateway) }
        #expect(inFlight.inUse(for: "team") == 0)
        try await client.execute(uri: "/api/quick", method: .get) { #expect($0.status == .ok) }
      }
    }

    /// All or nothing, both ways: a refused lease takes back the rate grant (problem details name the policy);
    /// a rate refusal takes no lease (the concurrency limiter is not even asked).
    @Test(arguments: ["router", "live"])
    func mixedWithRatePoliciesAllOrNothing(client kind: String) async throws {
      let requests = KeyedRateLimiter<String>(limit: 5, per: .seconds(60), clock: ManualClock())
      let inFlight = CountedLeases(limit: 1)
      let latch = Latch()
      let app = Self.app(
        [RateLimitPolicy("rpm", requests), RateLimitPolicy("inflight", concurrency: inFlight)], latch: latch,
        refusal: .problemDetails)
      try await app.test(Self.setup(kind)) { client in
        async let streamed = client.execute(uri: "/api/events", method: .get) { $0.status }
        // After the `async let`s: leaving the scope opens the latch first, then awaits them (a failed
        // expectation that throws would otherwise wait forever for streams waiting on the latch).
        defer { latch.open() }
        try await eventually("the stream holds its lease") { inFlight.base.inUse(for: "team") == 1 }
        let refused = try await probe(client, "/api/quick")
        #expect(refused.status == 429)
        #expect(refused.fields["retry-after"] == "1")
        #expect(refused.fields["ratelimit-policy"] == #""rpm";q=5;w=60, "inflight";q=1;qu="concurrent-requests""#)
        #expect(refused.fields["ratelimit"] == #""rpm";r=4;t=60, "inflight";r=0"#)
        let json = HummingbirdFailClosedTests.problem(ByteBuffer(string: refused.body))
        #expect(json?["violated-policies"] as? [String] == ["inflight"])
        // The refused request's rate grant was taken back: 4 left.
        #expect(requests.peek(1, for: "team").remaining == 3)
        latch.open()
        #expect(try await streamed == .ok)
        for _ in 0..<4 { try await client.execute(uri: "/api/quick", method: .get) { #expect($0.status == .ok) } }
        let asked = inFlight.decisions.withLock { $0 }
        try await client.execute(uri: "/api/quick", method: .get) { response in
          #expect(response.status == .tooManyRequests)
          #expect(response.headers[HTTPField.Name("Retry-After")!] == "60")
          #expect(response.headers[HTTPField.Name("RateLimit")!] == #""rpm";r=0;t=60"#)
        }
        #expect(inFlight.decisions.withLock { $0 } == asked)
        #expect(inFlight.base.inUse(for: "team") == 0)
      }
    }

    /// `ratelimit_in_flight{policy}`: the leases this process holds for the policy now.
    @Test func theGaugeCountsLeasesInFlight() async throws {
      let metrics = ObservabilityTests.metrics
      let name = "inflight-\(UInt64.random(in: 0...UInt64.max))"
      let inFlight = KeyedConcurrencyLimiter<String>(limit: 2)
      let latch = Latch()
      let app = Self.app([RateLimitPolicy(name, concurrency: inFlight)], latch: latch)
      try await app.test(.router) { client in
        async let first = client.execute(uri: "/api/events", method: .get) { $0.status }
        async let second = client.execute(uri: "/api/events", method: .get) { $0.status }
        // After the `async let`s: leaving the scope opens the latch first, then awaits them (a failed
        // expectation that throws would otherwise wait forever for streams waiting on the latch).
        defer { latch.open() }
        // The gauge is recorded once the middleware holds the lease, just after the limiter granted it.
        try await eventually("two streams hold leases, counted") {
          let gauge = try? metrics.expectGauge("ratelimit_in_flight", [("policy", name)])
          return inFlight.inUse(for: "team") == 2 && gauge?.lastValue == 2
        }
        #expect(try metrics.expectGauge("ratelimit_in_flight", [("policy", name)]).lastValue == 2)
        try await client.execute(uri: "/api/quick", method: .get) { #expect($0.status == .tooManyRequests) }
        latch.open()
        #expect(try await [first, second] == [.ok, .ok])
        #expect(try metrics.expectGauge("ratelimit_in_flight", [("policy", name)]).lastValue == 0)
        let refused = try metrics.expectCounter("ratelimit_requests", [("policy", name), ("decision", "refused")])
        #expect(refused.totalValue == 1)
        let granted = try metrics.expectCounter("ratelimit_requests", [("policy", name), ("decision", "granted")])
        #expect(granted.totalValue == 2)
      }
    }

    /// Under load (120 requests at once, limit 3): never more than 3 in the route, every lease released at the
    /// end, the gauge back to 0.
    @Test(arguments: ["router", "live"])
    func underLoadLeasesNeverExceedTheLimit(client kind: String) async throws {
      let metrics = ObservabilityTests.metrics
      let name = "load-\(UInt64.random(in: 0...UInt64.max))"
      let inFlight = KeyedConcurrencyLimiter<String>(limit: 3)
      let running = Shared((now: 0, most: 0))
      let app = Self.app([RateLimitPolicy(name, concurrency: inFlight)], running: running)
      try await app.test(Self.setup(kind)) { client in
        var statuses: [Int] = []
        if let port = client.port {
          // curl, 120 transfers at once on connections of their own.
          let url = "http://localhost:\(port)/api/slow"
          let each = ["-o", "/dev/null", "-w", "%{http_code}\n", url]
          let out = try await curl(
            ["-s", "--no-progress-meter", "-Z", "--parallel-max", "120"]
              + Array(repeating: each, count: 120).flatMap { $0 })
          statuses = out.split(separator: "\n").compactMap { Int($0) }
        } else {
          statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<120 {
              group.addTask { try await client.execute(uri: "/api/slow", method: .get) { Int($0.status.code) } }
            }
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            return statuses
          }
        }
        #expect(statuses.count == 120)
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 429 })
        #expect(statuses.contains(200))
        #expect(statuses.contains(429))
      }
      #expect(running.withLock { $0.most } <= 3)
      #expect(inFlight.inUse(for: "team") == 0)
      #expect(try metrics.expectGauge("ratelimit_in_flight", [("policy", name)]).lastValue == 0)
    }
  }
#endif
