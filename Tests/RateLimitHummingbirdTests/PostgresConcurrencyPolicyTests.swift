#if Hummingbird && Postgres
  import Foundation
  import HTTPTypes
  import Hummingbird
  import HummingbirdTesting
  import PostgresNIO
  import RateLimit
  import RateLimitHTTP
  import MiddlewareTestSupport
  import RateLimitHummingbird
  @_spi(RateLimitIntegration) import RateLimitPostgres
  import Testing

  /// SPEC 4.4 through a middleware, across a fleet: two live servers, each with its own client and
  /// `PostgresConcurrencyLimiter` of one name (two instances of one service), on the real server that
  /// `scripts/with-postgres.sh` starts (CI's PostgreSQL stage runs this suite; the middleware stage skips it).
  @Suite struct HummingbirdPostgresConcurrencyTests {
    /// A stream on one instance holds the fleet's only lease of its key to its last byte: the other instance
    /// answers 429 with `Retry-After: 1` and the draft's fields meanwhile, and grants once the stream ended.
    @Test func aStreamOnOneInstanceHoldsTheFleetsLeaseToItsLastByte() async throws {
      guard let url = ProcessInfo.processInfo.environment["RATELIMIT_POSTGRES_URL"],
        let configuration = loopbackConfiguration(url: url)
      else {
        Issue.record("RATELIMIT_POSTGRES_URL is not set: run through scripts/with-postgres.sh")
        return
      }
      let name = "inflight-\(UInt64.random(in: 0...UInt64.max))"
      let (first, second) = (PostgresClient(configuration: configuration), PostgresClient(configuration: configuration))
      let running = [Task { await first.run() }, Task { await second.run() }]
      defer { for task in running { task.cancel() } }
      let limiters = [first, second].map { client in
        PostgresConcurrencyLimiter(client: client, name: name, limit: 1, leaseTimeout: .seconds(30))
      }
      let latch = Latch()
      let here = HummingbirdConcurrencyPolicyTests.app(
        [RateLimitPolicy("inflight", concurrency: limiters[0])], latch: latch)
      let there = HummingbirdConcurrencyPolicyTests.app([RateLimitPolicy("inflight", concurrency: limiters[1])])
      try await here.test(.live) { hereClient in
        try await there.test(.live) { thereClient in
          async let streamed = hereClient.execute(uri: "/api/events", method: .get) { response in
            (response.status, String(buffer: response.body))
          }
          // After the `async let`: leaving the scope opens the latch first, then awaits it.
          defer { latch.open() }
          try await eventually("the stream holds the fleet's lease") {
            try await limiters[1].inUse(for: "team") == 1
          }
          let refused = try await probe(thereClient, "/api/quick")
          #expect(refused.status == 429)
          #expect(refused.fields["retry-after"] == "1")
          #expect(refused.fields["ratelimit-policy"] == HummingbirdConcurrencyPolicyTests.policyField)
          #expect(refused.fields["ratelimit"] == #""inflight";r=0"#)
          latch.open()
          let (status, body) = try await streamed
          #expect(status == .ok)
          #expect(body == "data: 1\n\ndata: 2\n\ndata: 3\n\n")
          // The release reaches the database within a round trip of the stream's end.
          try await eventually("the lease is released fleet-wide") { try await limiters[1].inUse(for: "team") == 0 }
          let granted = try await probe(thereClient, "/api/quick")
          #expect(granted.status == 200)
          #expect(granted.fields["ratelimit"] == #""inflight";r=0"#)
          // That request's lease too, from the other instance: its release is sent after the response
          // (never on the caller's path), so the first instance sees it within a round trip, not at once.
          try await eventually("the second lease is released fleet-wide") {
            try await limiters[0].inUse(for: "team") == 0
          }
        }
      }
    }
  }
#endif
