import RateLimit
import RateLimitHTTP
import Testing

/// SPEC 4.3's call sites, compiled as written (the model and the transport stand in for an app's own).
@Suite struct SpecCallSite43Tests {
  actor Model {
    var searched: [String] = []
    func search(_ query: String) { searched.append(query) }
  }

  @Test func aStreamOfTextIsSearchedWithoutAClosureObject() async {
    let (queries, continuation) = AsyncStream<String>.makeStream()
    let model = Model()
    continuation.yield("s")
    continuation.yield("sw")
    continuation.finish()
    for await query in queries.debounced(for: .milliseconds(300)) { await model.search(query) }  // no `try`
    #expect(await model.searched == ["sw"])
  }

  @Test func tapsAreCountedPerWindow() async {
    let (taps, continuation) = AsyncStream<Void>.makeStream()
    for _ in 0..<3 { continuation.yield() }
    continuation.finish()
    var counts: [Int] = []
    for await count in taps.map({ _ in 1 }).throttled(for: .milliseconds(500), mode: .trailing, reducing: { $0 += $1 })
    {
      counts.append(count)
    }
    #expect(counts == [3])
  }

  @Test func anAPIClientWaitsWhenTold() async throws {
    @Sendable func send(_ request: String) async throws -> (Int, [(name: String, value: String)]) {
      (429, [(name: "Retry-After", value: "30"), (name: "RateLimit", value: #""api";r=0;t=30"#)])
    }
    let request = "GET /"
    let api = RateLimiter(limit: 5_000, per: .seconds(3_600))
    try await api.acquire()
    let (status, fields) = try await send(request)
    api.block(for: ServerQuota(status: status, fields: fields).wait)
    #expect(api.retryAfter()! > .seconds(29))
    #expect(!api.tryAcquire())
  }
}

#if os(macOS) || os(Linux) || os(Windows)
  @Suite struct IPv6PrefixPreconditionTests {
    @Test func aPrefixOutsideFortyEightToOneTwentyEightTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = clientKey(address: "2001:db8::1", ipv6Prefix: 47)
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("ipv6Prefix must be from 48 to 128, got ipv6Prefix: 47"), "\(message)")
    }

    @Test func aPermitsBelowOneTraps() async {
      await #expect(processExitsWith: .failure) {
        _ = RateLimitPolicy("p", KeyedRateLimiter<String>(limit: 1, per: .seconds(1))).permits(0)
      }
    }
  }
#endif
