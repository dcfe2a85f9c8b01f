#if Vapor
  import Foundation
  import RateLimit
  import RateLimitHTTP
  import RateLimitMiddlewareSupport
  import RateLimitVapor
  import Synchronization
  import MiddlewareTestSupport
  import Testing
  import Vapor
  import VaporTesting

  /// One response: its status, fields by lowercased name, and body.
  struct Answer: Sendable {
    var status: Int
    var fields: [String: String]
    var body: String
  }

  /// A client of the app: Vapor's in-memory tester, or curl against the app served on a loopback port.
  struct Client: Sendable {
    let tester: (any TestingApplicationTester)?
    let port: Int?

    func get(_ path: String) async throws -> Answer {
      guard let port else {
        var answer = Answer(status: 0, fields: [:], body: "")
        try await tester!.test(.GET, path) { response async in
          answer.status = Int(response.status.code)
          for (name, value) in response.headers { answer.fields[name.lowercased()] = value }
          answer.body = response.body.string
        }
        return answer
      }
      let text = try await curl(["-s", "-i", "--max-time", "10", "http://127.0.0.1:\(port)\(path)"])
      let parts = text.replacingOccurrences(of: "\r", with: "").components(separatedBy: "\n\n")
      let lines = parts[0].split(separator: "\n").map(String.init)
      var answer = Answer(
        status: Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0, fields: [:],
        body: parts.dropFirst().joined(separator: "\n\n"))
      for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        answer.fields[line[..<colon].lowercased()] = line[line.index(after: colon)...]
          .trimmingCharacters(in: .whitespaces)
      }
      return answer
    }
  }

  /// SPEC 4.4, "The middleware: the rules added": a concurrency policy through VaporTesting in memory and a live
  /// server on a loopback port hit by curl.
  @Suite struct VaporConcurrencyPolicyTests {
    static let policyField = #""inflight";q=1;qu="concurrent-requests""#

    /// The routes behind one middleware keyed "team": `/events` streams three server-sent events (an async
    /// stream), the last two once `latch` opens; `/callback` the same as a callback stream; `/quick` answers at
    /// once; `/fail` throws; `/endless` streams an event every 20 ms for 10 s, counting them in `sent`.
    static func routes(
      _ app: Application, _ policies: [RateLimitPolicy], latch: Latch = Latch(), sent: Shared<Int> = Shared(0),
      refusal: RateLimitRefusalBody = .text
    ) {
      let api = app.grouped(RateLimitMiddleware(refusal: refusal) { _ in .limit("team", policies) })
      api.get("events") { _ -> Response in
        Response(
          status: .ok, headers: ["Content-Type": "text/event-stream"],
          body: .init(asyncStream: { writer in
            try await writer.writeBuffer(ByteBuffer(string: "data: 1\n\n"))
            await latch.wait()
            try await writer.writeBuffer(ByteBuffer(string: "data: 2\n\n"))
            try await writer.writeBuffer(ByteBuffer(string: "data: 3\n\n"))
            try await writer.write(.end)
          }))
      }
      api.get("callback") { _ -> Response in
        Response(
          status: .ok, headers: ["Content-Type": "text/event-stream"],
          body: .init(stream: { writer in
            writer.write(.buffer(ByteBuffer(string: "data: 1\n\n")), promise: nil)
            Task {
              await latch.wait()
              writer.eventLoop.execute {
                writer.write(.buffer(ByteBuffer(string: "data: 2\n\n")), promise: nil)
                writer.write(.buffer(ByteBuffer(string: "data: 3\n\n")), promise: nil)
                writer.write(.end, promise: nil)
              }
            }
          }))
      }
      api.get("quick") { _ in "ok" }
      api.get("fail") { _ -> String in throw Abort(.badGateway) }
      api.get("endless") { _ -> Response in
        Response(
          status: .ok, headers: ["Content-Type": "text/event-stream"],
          body: .init(managedAsyncStream: { writer in
            for index in 1...500 {
              try await writer.writeBuffer(ByteBuffer(string: "data: \(index)\n\n"))
              sent.withLock { $0 = index }
              try await Task.sleep(for: .milliseconds(20))
            }
          }))
      }
    }

    /// Runs `body` with a client: in memory, or the app served on a loopback port (curl).
    static func withClient(_ app: Application, live: Bool, _ body: (Client) async throws -> Void) async throws {
      guard live else { return try await body(Client(tester: try app.testing(), port: nil)) }
      app.http.server.configuration.hostname = "127.0.0.1"
      app.http.server.configuration.port = 0
      try await app.server.start(address: .hostname("127.0.0.1", port: 0))
      do {
        let port = try #require(app.http.server.shared.localAddress?.port)
        try await body(Client(tester: nil, port: port))
      } catch {
        await app.server.shutdown()
        throw error
      }
      await app.server.shutdown()
    }

    /// A streamed body (an async stream, or a callback stream) holds its lease until its last byte: a second
    /// request is refused (429, `Retry-After: 1`, the exact fields) while it is open, and granted after.
    @Test(arguments: [false, true], ["events", "callback"])
    func aStreamedBodyHoldsItsLeaseUntilItsLastByte(live: Bool, route: String) async throws {
      let inFlight = KeyedConcurrencyLimiter<String>(limit: 1)
      let latch = Latch()
      try await withApp { app in
        Self.routes(app, [RateLimitPolicy("inflight", concurrency: inFlight)], latch: latch)
        try await Self.withClient(app, live: live) { client async throws in
          async let streamed = client.get("/\(route)")
          // After the `async let`s: leaving the scope opens the latch first, then awaits them (a failed
          // expectation that throws would otherwise wait forever for streams waiting on the latch).
          defer { latch.open() }
          try await eventually("the stream holds its lease") { inFlight.inUse(for: "team") == 1 }
          let refused = try await client.get("/quick")
          #expect(refused.status == 429)
          #expect(refused.fields["retry-after"] == "1")
          #expect(refused.fields["ratelimit-policy"] == Self.policyField)
          #expect(refused.fields["ratelimit"] == #""inflight";r=0"#)
          #expect(inFlight.inUse(for: "team") == 1)
          latch.open()
          let answer = try await streamed
          #expect(answer.status == 200)
          #expect(answer.body == "data: 1\n\ndata: 2\n\ndata: 3\n\n")
          #expect(answer.fields["ratelimit"] == #""inflight";r=0"#)
          // The end of the body was sent after the release.
          try await eventually("released at the last byte") { inFlight.inUse(for: "team") == 0 }
          let granted = try await client.get("/quick")
          #expect(granted.status == 200)
          #expect(granted.fields["ratelimit-policy"] == Self.policyField)
        }
      }
      #expect(inFlight.inUse(for: "team") == 0)
    }

    /// `ratelimit_in_flight{policy}` counts the leases Vapor's middleware holds (the gauge records this count;
    /// its backend is tested through Hummingbird, as swift-metrics allows one per process): 2 while two
    /// streams are open, 0 once both ended.
    @Test(arguments: [false, true]) func theGaugeCountsLeasesInFlight(live: Bool) async throws {
      let name = "inflight-\(UInt64.random(in: 0...UInt64.max))"
      let inFlight = KeyedConcurrencyLimiter<String>(limit: 2)
      let latch = Latch()
      try await withApp { app in
        Self.routes(app, [RateLimitPolicy(name, concurrency: inFlight)], latch: latch)
        try await Self.withClient(app, live: live) { client async throws in
          async let first = client.get("/events")
          async let second = client.get("/events")
          // After the `async let`s: leaving the scope opens the latch first, then awaits them.
          defer { latch.open() }
          try await eventually("two streams hold leases, counted") {
            inFlight.inUse(for: "team") == 2 && InFlightGauges.shared.count(for: name) == 2
          }
          #expect(try await client.get("/quick").status == 429)
          #expect(InFlightGauges.shared.count(for: name) == 2)
          latch.open()
          #expect(try await [first.status, second.status] == [200, 200])
          try await eventually("both counted out") { InFlightGauges.shared.count(for: name) == 0 }
          #expect(inFlight.inUse(for: "team") == 0)
        }
      }
    }

    /// A client that goes away mid-stream (curl, after two events) releases the lease: the next write fails.
    @Test func aClientThatGoesAwayMidStreamReleasesItsLease() async throws {
      let inFlight = KeyedConcurrencyLimiter<String>(limit: 1)
      let sent = Shared(0)
      try await withApp { app in
        Self.routes(app, [RateLimitPolicy("inflight", concurrency: inFlight)], sent: sent)
        try await Self.withClient(app, live: true) { client async throws in
          let port = try #require(client.port)
          let output = try await curlLeaving(after: 18, "http://127.0.0.1:\(port)/endless")
          #expect(output == "data: 1\n\ndata: 2\n\n")
          try await eventually("the lease of a client gone is released") { inFlight.inUse(for: "team") == 0 }
          #expect(try await client.get("/quick").status == 200)
        }
      }
      #expect(sent.withLock { $0 } < 500)
    }

    /// A route that throws releases the lease at once.
    @Test(arguments: [false, true]) func aThrowingRouteReleasesAtOnce(live: Bool) async throws {
      let inFlight = KeyedConcurrencyLimiter<String>(limit: 1)
      try await withApp { app in
        Self.routes(app, [RateLimitPolicy("inflight", concurrency: inFlight)])
        try await Self.withClient(app, live: live) { client async throws in
          #expect(try await client.get("/fail").status == 502)
          #expect(inFlight.inUse(for: "team") == 0)
          #expect(try await client.get("/quick").status == 200)
        }
      }
    }

    /// All or nothing, both ways: a refused lease takes back the rate grant (problem details name the policy); a
    /// rate refusal takes no lease.
    @Test(arguments: [false, true]) func mixedWithRatePoliciesAllOrNothing(live: Bool) async throws {
      let requests = KeyedRateLimiter<String>(limit: 5, per: .seconds(60), clock: ManualClock())
      let inFlight = KeyedConcurrencyLimiter<String>(limit: 1)
      let latch = Latch()
      try await withApp { app in
        Self.routes(
          app, [RateLimitPolicy("rpm", requests), RateLimitPolicy("inflight", concurrency: inFlight)], latch: latch,
          refusal: .problemDetails)
        try await Self.withClient(app, live: live) { client async throws in
          async let streamed = client.get("/events")
          // After the `async let`s: leaving the scope opens the latch first, then awaits them (a failed
          // expectation that throws would otherwise wait forever for streams waiting on the latch).
          defer { latch.open() }
          try await eventually("the stream holds its lease") { inFlight.inUse(for: "team") == 1 }
          let refused = try await client.get("/quick")
          #expect(refused.status == 429)
          #expect(refused.fields["retry-after"] == "1")
          #expect(refused.fields["ratelimit-policy"] == #""rpm";q=5;w=60, "inflight";q=1;qu="concurrent-requests""#)
          #expect(refused.fields["ratelimit"] == #""rpm";r=4;t=60, "inflight";r=0"#)
          #expect(refused.body.contains(#""violated-policies":["inflight"]"#))
          #expect(requests.peek(1, for: "team").remaining == 3)
          latch.open()
          #expect(try await streamed.status == 200)
          try await eventually("released") { inFlight.inUse(for: "team") == 0 }
          for _ in 0..<4 { #expect(try await client.get("/quick").status == 200) }
          let rate = try await client.get("/quick")
          #expect(rate.status == 429)
          #expect(rate.fields["retry-after"] == "60")
          #expect(rate.fields["ratelimit"] == #""rpm";r=0;t=60"#)
          #expect(inFlight.inUse(for: "team") == 0)
        }
      }
    }
  }
#endif
