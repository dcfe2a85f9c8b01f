import RateLimit
import RateLimitHTTP
import Testing

@Suite struct RateLimitFieldsTests {
  @Test func namesAreStructuredFieldStrings() {
    #expect(RateLimitFields.structuredString(#"a"b\c"#) == #""a\"b\\c""#)
    #expect(RateLimitFields.structuredString("día") == #""d?a""#)
  }

  @Test func wholeSecondsRoundUp() {
    #expect(RateLimitFields.wholeSeconds(.zero) == 0)
    #expect(RateLimitFields.wholeSeconds(.nanoseconds(1)) == 1)
    #expect(RateLimitFields.wholeSeconds(.seconds(4)) == 4)
    #expect(RateLimitFields.wholeSeconds(.milliseconds(4_001)) == 5)
    #expect(RateLimitFields.wholeSeconds(.seconds(-3)) == 0)
  }
}

@Suite struct RateLimitGateTests {
  @Test func grantedCarriesBothFieldsInPolicyOrder() async throws {
    let clock = ManualClock()
    let search = KeyedRateLimiter<String>(limit: 10, per: .seconds(10), clock: clock)
    let daily = KeyedRateLimiter<String>(limit: 100, per: .seconds(86_400), burst: 100, clock: clock)
    let gate = RateLimitGate([RateLimitPolicy("search", search), RateLimitPolicy(#"da"ily"#, daily)])
    for _ in 0..<2 { _ = try await gate.decide(key: "k") }
    clock.advance(by: .seconds(6))
    guard case .granted(let fields) = try await gate.decide(key: "k") else {
      Issue.record("refused")
      return
    }
    #expect(fields.map(\.name) == ["RateLimit-Policy", "RateLimit"])
    #expect(fields[0].value == #""search";q=10;w=10, "da\"ily";q=100;w=86400"#)
    // t is the effective window (SPEC 4.2): search: 3 in the window, 7 left; taken now, the next comes when the
    // oldest (at 0 s) leaves, at 10 s (t = 4); daily: 97 whole permits and 6 s of the next, whole in 858 s.
    #expect(fields[1].value == #""search";r=7;t=4, "da\"ily";r=97;t=858"#)
  }

  @Test func aRefusalTakesNothingFromAnyPolicy() async throws {
    let clock = ManualClock()
    let perSecond = KeyedRateLimiter<String>(limit: 1, per: .seconds(1), clock: clock)
    let perDay = KeyedRateLimiter<String>(limit: 3, per: .seconds(86_400), clock: clock)
    let gate = RateLimitGate([RateLimitPolicy("burst", perSecond), RateLimitPolicy("daily", perDay)])
    var granted = 0
    for _ in 0..<20 {
      for _ in 0..<5 {
        switch try await gate.decide(key: "k") {
        case .granted: granted += 1
        case .refused(let refusal):
          #expect(refusal.fields.first?.name == "Retry-After")
        case .badRequest: Issue.record("bad request")
        }
      }
      clock.advance(by: .seconds(1))
    }
    // Refusals by the per-second policy never ate the daily quota, nor the other way round.
    #expect(granted == 3)
    // Refused by the daily policy now: the per-second grant it made was taken back at once.
    guard case .refused(let refusal) = try await gate.decide(key: "k") else {
      Issue.record("granted")
      return
    }
    #expect(refusal.refusedBy == ["daily"])
    #expect(perSecond.retryAfter(for: "k") == .zero)
    #expect(perDay.retryAfter(for: "k") == .seconds(86_400 - 20))
    // burst: 1 left, the next a window after it is taken (t = 1); daily: full, one permit when the oldest leaves.
    #expect(refusal.fields.last?.value == #""burst";r=1;t=1, "daily";r=0;t=86380"#)
  }

  /// SPEC 4.1.1, "an undo is exact under concurrency": another grant of the key between a grant and its undo
  /// changes nothing of what the undo gives back. 4.1's token bucket gave back nothing then (18 left, not 19).
  @Test(arguments: [false, true]) func anUndoGivesBackItsPermitsWhateverCameBetween(_ bucket: Bool) async {
    let clock = ManualClock()
    let limiter =
      bucket
      ? KeyedRateLimiter<String>(limit: 20, per: .seconds(60), burst: 20, clock: clock)
      : KeyedRateLimiter<String>(limit: 20, per: .seconds(60), clock: clock)
    let first = limiter.decideUndoably(1, for: "k")
    #expect(first.decision.remaining == 19)
    clock.advance(by: .milliseconds(1))
    #expect(limiter.decide(1, for: "k").remaining == 18)
    clock.advance(by: .milliseconds(1))
    let after = await first.undo()
    #expect(after.remaining == 19)
    #expect(limiter.decide(1, for: "k").remaining == 18)
  }

  /// SPEC 4.1.1, "the fields": a policy without limiting (a zero window) is not listed (the draft forbids
  /// `w=0`); 4.1 sent `"open";q=5;w=0`.
  @Test func aPolicyWithoutLimitingIsNotListed() async throws {
    let clock = ManualClock()
    let open = KeyedRateLimiter<String>(limit: 5, per: .zero, clock: clock)
    let search = KeyedRateLimiter<String>(limit: 10, per: .seconds(10), clock: clock)
    let gate = RateLimitGate([RateLimitPolicy("open", open), RateLimitPolicy("search", search)])
    guard case .granted(let fields) = try await gate.decide(key: "k") else {
      Issue.record("refused")
      return
    }
    #expect(fields.map(\.value) == [#""search";q=10;w=10"#, #""search";r=9;t=10"#])
    let alone = RateLimitGate([RateLimitPolicy("open", open)])
    guard case .granted(let none) = try await alone.decide(key: "k") else {
      Issue.record("refused")
      return
    }
    #expect(none.isEmpty)
  }

  @Test func refusalRetryAfterIsTheLongestAndAtLeastOneSecond() async throws {
    let clock = ManualClock()
    let a = KeyedRateLimiter<String>(limit: 1, per: .milliseconds(300), clock: clock)
    let gate = RateLimitGate([RateLimitPolicy("a", a)])
    _ = try await gate.decide(key: "k")
    guard case .refused(let refusal) = try await gate.decide(key: "k") else {
      Issue.record("granted")
      return
    }
    #expect(refusal.refusedBy == ["a"])
    #expect(refusal.retryAfter == .milliseconds(300))
    #expect(refusal.fields[0] == ("Retry-After", "1"))
  }

  @Test func moreThanTheCapacityHasNoRetryAfter() async throws {
    let limiter = KeyedRateLimiter<String>(limit: 2, per: .seconds(1), clock: ManualClock())
    let gate = RateLimitGate([RateLimitPolicy("big", limiter, permits: 3)], headers: .none)
    guard case .refused(let refusal) = try await gate.decide(key: "k") else {
      Issue.record("granted")
      return
    }
    #expect(refusal.retryAfter == nil)
    #expect(refusal.fields.isEmpty)
  }

  @Test func aKeyLongerThan1024BytesIsABadRequest() async throws {
    let limiter = KeyedRateLimiter<String>(limit: 2, per: .seconds(1), clock: ManualClock())
    let gate = RateLimitGate([RateLimitPolicy("p", limiter)])
    guard case .badRequest = try await gate.decide(key: String(repeating: "x", count: 1_025)) else {
      Issue.record("decided")
      return
    }
    guard case .granted = try await gate.decide(key: String(repeating: "x", count: 1_024)) else {
      Issue.record("not granted")
      return
    }
    #expect(limiter.count == 1)
  }
}

/// The middlewares' synchronous path answers exactly as `decide(key:)` does, and only for one in-process policy.
@Suite struct InProcessGateTests {
  static func described(_ outcome: RateLimitGate.Outcome) -> String {
    switch outcome {
    case .granted(let fields): "granted \(fields.map { "\($0.name): \($0.value)" })"
    case .refused(let refusal):
      "refused by \(refusal.refusedBy), retry \(String(describing: refusal.retryAfter)), "
        + "\(refusal.fields.map { "\($0.name): \($0.value)" })"
    case .badRequest: "bad request"
    }
  }

  /// The fast path's answer as `decide(key:)` would spell it: a grant with both fields, in order.
  static func described(_ outcome: RateLimitGate.InProcessOutcome, policyField: String?) -> String {
    switch outcome {
    case .granted(let state):
      let fields = [("RateLimit-Policy", policyField), ("RateLimit", state)].compactMap { name, value in
        value.map { (name: name, value: $0) }
      }
      return described(.granted(fields: fields))
    case .other(let outcome): return described(outcome)
    }
  }

  @Test(arguments: [false, true], [RateLimitHeaders.ietf, .none])
  func answersAsDecideDoes(bucket: Bool, headers: RateLimitHeaders) async throws {
    let clock = ManualClock()
    func limiter() -> KeyedRateLimiter<String> {
      bucket
        ? KeyedRateLimiter(limit: 3, per: .seconds(10), burst: 2, clock: clock)
        : KeyedRateLimiter(limit: 3, per: .seconds(10), clock: clock)
    }
    let (synchronous, asynchronous) = (limiter(), limiter())
    let local = RateLimitGate([RateLimitPolicy("api", synchronous, permits: 1)], headers: headers)
    let awaited = RateLimitGate([RateLimitPolicy("api", asynchronous, permits: 1)], headers: headers)
    var generator = SystemRandomNumberGenerator()
    for step in 0..<400 {
      let key =
        step % 50 == 0 ? String(repeating: "k", count: 1_025) : "key \(Int.random(in: 0..<3, using: &generator))"
      let answer = try #require(local.decideInProcess(key: key))
      #expect(
        Self.described(answer, policyField: local.inProcessPolicyField)
          == Self.described(try await awaited.decide(key: key)), "step \(step)")
      clock.advance(by: .milliseconds(Int.random(in: 0..<3_000, using: &generator)))
    }
  }

  @Test func anythingElseGoesThroughDecide() {
    let clock = ManualClock()
    let one = KeyedRateLimiter<String>(limit: 1, per: .seconds(1), clock: clock)
    let two = RateLimitGate([RateLimitPolicy("a", one), RateLimitPolicy("b", one)])
    #expect(two.decideInProcess(key: "k") == nil)
    #expect(two.inProcessPolicyField == nil)
  }
}

/// What a middleware answers when the route does not run, written once in RateLimitHTTP.
@Suite struct RateLimitAnswerTests {
  @Test func refusedBadRequestAndUnavailable() async throws {
    let clock = ManualClock()
    let limiter = KeyedRateLimiter<String>(limit: 1, per: .seconds(10), clock: clock)
    let gate = RateLimitGate([RateLimitPolicy("api", limiter)])
    let granted = try await gate.decide(key: "k")
    #expect(gate.answer(for: granted, key: "k") == nil)
    let refused = try #require(gate.answer(for: try await gate.decide(key: "k"), key: "k"))
    #expect(refused.status == 429 && refused.body == "Too Many Requests\n")
    #expect(refused.contentType == "text/plain; charset=utf-8")
    #expect(refused.fields.map(\.name) == ["Retry-After", "RateLimit-Policy", "RateLimit"])
    #expect(refused.log?.level == .debug)
    #expect(refused.log?.metadata.map(\.value) == ["api", "k", "10.0 seconds"])
    let long = String(repeating: "x", count: 1_025)
    let badRequest = try #require(gate.answer(for: try await gate.decide(key: long), key: long))
    #expect(badRequest.status == 400 && badRequest.fields.isEmpty && badRequest.log == nil)
    struct Away: Error {}
    let unavailable = RateLimitGate.answer(unavailable: Away(), key: "k")
    #expect(unavailable.status == 503 && unavailable.body == "Service Unavailable\n")
    #expect(unavailable.fields.map(\.name) == ["Retry-After"] && unavailable.fields.map(\.value) == ["1"])
    #expect(unavailable.log?.level == .warning)
  }

  @Test func theHeaderChoicesStillCompileAsBefore() {
    let choices: [RateLimitHeaders] = [.ietf, .none]
    #expect(choices[0] != choices[1])
    #expect(RateLimitGate([], headers: .none).headers == .none)
  }
}
