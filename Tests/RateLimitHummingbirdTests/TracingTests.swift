#if Hummingbird
  import Hummingbird
  import HummingbirdTesting
  import InMemoryTracing
  import Instrumentation
  import RateLimit
  import RateLimitHTTP
  import RateLimitHummingbird
  import Testing
  import Tracing

  /// SPEC 4.2, "Observability": the decision on the request's span, through swift-distributed-tracing's
  /// in-memory tracer and Hummingbird's own `TracingMiddleware` (added before ours, as an app does).
  @Suite struct TracingTests {
    /// This test process's tracer: bootstrapped once (swift-distributed-tracing allows no second).
    static let tracer: InMemoryTracer = {
      let tracer = InMemoryTracer()
      InstrumentationSystem.bootstrap(tracer)
      return tracer
    }()

    @Test func theDecisionIsOnTheRequestsSpan() async throws {
      let tracer = Self.tracer
      let name = "traced-\(UInt64.random(in: 0...UInt64.max))"
      let router = Router()
      router.add(middleware: TracingMiddleware())
      router.add(
        middleware: RateLimitMiddleware(
          RateLimitPolicy(name, KeyedRateLimiter<String>(limit: 1, per: .seconds(30), clock: ManualClock()))
        ) { _, _ in "client" })
      router.get("/traced") { _, _ in "ok" }
      let app = Application(router: router)
      try await app.test(.router) { client in
        try await client.execute(uri: "/traced", method: .get) { #expect($0.status == .ok) }
        try await client.execute(uri: "/traced", method: .get) { #expect($0.status == .tooManyRequests) }
      }
      let spans = tracer.finishedSpans.filter {
        $0.attributes["ratelimit.policy"]?.toSpanAttribute() == .stringArray([name])
      }
      #expect(spans.count == 2)
      let decisions = spans.map { $0.attributes["ratelimit.decision"]?.toSpanAttribute() }
      #expect(decisions.contains(.string("granted")) && decisions.contains(.string("refused")))
      let refused = spans.first { $0.attributes["ratelimit.decision"]?.toSpanAttribute() == .string("refused") }
      #expect(refused?.attributes["ratelimit.retry_after"]?.toSpanAttribute() == .int64(30))
    }
  }
#endif
