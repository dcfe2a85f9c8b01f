import RateLimit
import RateLimitHTTP
import RateLimitStoreKit
import Testing

/// `ServerQuota` (SPEC 4.3, "Following a server"): the draft's own examples, the rules for malformed input, the
/// three HTTP-date forms, the `X-RateLimit-*` fields, our own middleware's fields read back, and a fuzzed corpus.
@Suite struct ServerQuotaTests {
  typealias Policy = ServerQuota.Policy

  @Test func theDraftsPolicyAndStateAreOnePolicyEach() {
    let quota = ServerQuota(
      status: 200,
      fields: [
        ("RateLimit-Policy", #""burst";q=100;w=60,"daily";q=1000;w=86400"#),
        ("RateLimit", #""burst";r=0;t=30, "daily";r=800;t=3600"#),
      ])
    #expect(
      quota.policies == [
        Policy(name: "burst", quota: 100, window: .seconds(60), remaining: 0, effectiveWindow: .seconds(30)),
        Policy(name: "daily", quota: 1_000, window: .seconds(86_400), remaining: 800, effectiveWindow: .seconds(3_600)),
      ])
    #expect(quota.retryAfter == nil)
    // Nothing left of "burst" for 30 s.
    #expect(quota.wait == .seconds(30))
  }

  @Test func thePartitionKeyTellsPoliciesApart() {
    let quota = ServerQuota(
      status: 200,
      fields: [
        ("ratelimit-policy", #""peruser";q=100;w=60;pk=:cHsdsRa894==:"#),
        ("ratelimit", #""peruser";r=7;t=5;pk=:cHsdsRa894==:, "peruser";r=1;t=9"#),
      ])
    let key: [UInt8] = [0x70, 0x7B, 0x1D, 0xB1, 0x16, 0xBC, 0xF7]
    #expect(
      quota.policies == [
        Policy(
          name: "peruser", quota: 100, window: .seconds(60), remaining: 7, effectiveWindow: .seconds(5),
          partitionKey: key),
        Policy(name: "peruser", remaining: 1, effectiveWindow: .seconds(9)),
      ])
    #expect(quota.wait == .zero)
  }

  @Test func retryAfterWinsOnA429AndA503Only() {
    let fields = [("Retry-After", "120"), ("RateLimit", #""default";r=0;t=30"#)]
    #expect(ServerQuota(status: 429, fields: fields).wait == .seconds(120))
    #expect(ServerQuota(status: 503, fields: fields).wait == .seconds(120))
    // Elsewhere Retry-After means other things: the policies answer.
    #expect(ServerQuota(status: 301, fields: fields).retryAfter == .seconds(120))
    #expect(ServerQuota(status: 301, fields: fields).wait == .seconds(30))
    // A policy without `r`, or r=0 without `t`, gives nothing.
    #expect(ServerQuota(status: 200, fields: [("RateLimit", #""a";t=30, "b";r=0"#)]).wait == .zero)
  }

  @Test func namesAreCaseInsensitiveAndLinesOfOneNameAreOneList() {
    let quota = ServerQuota(
      status: 200, fields: [("RATELIMIT", #""a";r=1;t=2"#), ("ratelimit", #""b";r=3;t=4"#)])
    #expect(quota.policies.map(\.name) == ["a", "b"])
    // One malformed line drops every line of that name.
    let broken = ServerQuota(status: 200, fields: [("RateLimit", #""a";r=1;t=2"#), ("RateLimit", #""b";r=3;t="#)])
    #expect(broken.policies.isEmpty)
  }

  @Test func malformedMembersAreIgnoredAndTheRestCounts() {
    let quota = ServerQuota(
      status: 200,
      fields: [
        (
          "RateLimit-Policy",
          #"token;q=1;w=1, "neg";q=-1;w=10, "zero";q=5;w=0, "dec";q=1.5;w=10, "ok";q=5;w=10;qu="requests";x=?1, "#
            + #"("inner" "list");q=1;w=1"#
        ),
        ("RateLimit", #""ok";r=4;t=2;unknown=:AAAA:, "str";r="1""#),
      ])
    #expect(
      quota.policies == [Policy(name: "ok", quota: 5, window: .seconds(10), remaining: 4, effectiveWindow: .seconds(2))]
    )
    for field in [
      #""a";r=1,"#, #""a";r=1 "b""#, #""a"r=1"#, #""a;r=1"#, #""a";R=1"#, #""a";r=1234567890123456"#, "\u{7F}",
    ] {
      #expect(ServerQuota(status: 200, fields: [("RateLimit", field)]).policies.isEmpty, "\(field)")
    }
  }

  @Test func laterParametersWin() {
    let quota = ServerQuota(
      status: 200, fields: [("RateLimit-Policy", #""a";q=5;w=10"#), ("RateLimit", #""a";r=4;t=2, "a";r=3"#)])
    #expect(
      quota.policies == [Policy(name: "a", quota: 5, window: .seconds(10), remaining: 3, effectiveWindow: .seconds(2))])
  }

  @Test func retryAfterIsSecondsOrAnHTTPDateInAnyForm() {
    let date = ("Date", "Sun, 06 Nov 1994 08:49:37 GMT")
    for form in ["Sun, 06 Nov 1994 08:51:37 GMT", "Sunday, 06-Nov-94 08:51:37 GMT", "Sun Nov  6 08:51:37 1994"] {
      #expect(ServerQuota(status: 429, fields: [date, ("Retry-After", form)]).retryAfter == .seconds(120), "\(form)")
    }
    // In the past: zero.
    #expect(
      ServerQuota(status: 429, fields: [date, ("Retry-After", "Sat, 05 Nov 1994 08:49:37 GMT")]).retryAfter == .zero)
    // Across a month and a leap day.
    #expect(
      ServerQuota(
        status: 429,
        fields: [("Date", "Wed, 28 Feb 2024 23:59:59 GMT"), ("Retry-After", "Fri, 01 Mar 2024 00:00:00 GMT")]
      ).retryAfter == .seconds(86_401))
    // Without a Date field: the wall clock; a date far ahead is about that far.
    let ahead = ServerQuota(status: 503, fields: [("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")]).wait
    #expect(ahead > .seconds(200_000_000_000))
    for bad in ["-1", "1.5", "soon", "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 32 Nov 1994 08:49:37 GMT", ""] {
      #expect(ServerQuota(status: 429, fields: [date, ("Retry-After", bad)]).retryAfter == nil, "\(bad)")
    }
    #expect(
      ServerQuota(status: 429, fields: [("Retry-After", " 99999999999999999999999 ")]).retryAfter == .seconds(Int64.max)
    )
  }

  @Test func theCommonFieldsAreOnePolicyWhenNoneIsNamed() {
    let date = ("Date", "Sun, 06 Nov 1994 08:49:37 GMT")
    let quota = ServerQuota(
      status: 200,
      fields: [
        date, ("X-RateLimit-Limit", "60"), ("x-ratelimit-remaining", "0"), ("X-RateLimit-Reset", "60"),
      ])
    #expect(quota.policies == [Policy(name: "", quota: 60, remaining: 0, effectiveWindow: .seconds(60))])
    #expect(quota.wait == .seconds(60))
    // A Unix time at or past 1,000,000,000 is relative to the Date field.
    let github = ServerQuota(
      status: 200, fields: [("Date", "Sun, 09 Sep 2001 01:46:40 GMT"), ("X-RateLimit-Reset", "1000000090")])
    #expect(github.policies.first?.effectiveWindow == .seconds(90))
    // Seconds, a fraction rounded up.
    #expect(
      ServerQuota(status: 200, fields: [("X-RateLimit-Reset", "1.2")]).policies.first?.effectiveWindow == .seconds(2))
    #expect(
      ServerQuota(status: 200, fields: [("X-RateLimit-Reset", "3.000")]).policies.first?.effectiveWindow == .seconds(3))
    // The value as sent decides: just below 1,000,000,000 it is seconds, whatever its fraction rounds up to.
    #expect(
      ServerQuota(status: 200, fields: [("X-RateLimit-Reset", "999999999.2")]).policies.first?.effectiveWindow
        == .seconds(1_000_000_000))
    // Negative, or not a number: ignored.
    #expect(ServerQuota(status: 200, fields: [("X-RateLimit-Reset", "-5")]).policies.isEmpty)
    #expect(ServerQuota(status: 200, fields: [("X-RateLimit-Remaining", "many")]).policies.isEmpty)
    // Ignored when the draft's fields name a policy.
    let both = ServerQuota(status: 200, fields: [("X-RateLimit-Remaining", "0"), ("RateLimit", #""a";r=5;t=1"#)])
    #expect(both.policies.map(\.name) == ["a"])
  }

  /// Our own fields, read back: a server's answer is a client's quota.
  @Test func ourOwnFieldsReadBack() {
    let decisions = [
      (
        name: "burst",
        decision: RateLimitDecision(
          isGranted: false, limit: 10, window: .seconds(10), remaining: 0, resetAfter: .seconds(10),
          retryAfter: .seconds(1), effectiveWindow: .milliseconds(1_500))
      ),
      (
        name: "daily \"x\"",
        decision: RateLimitDecision(
          isGranted: true, limit: 100, window: .seconds(86_400), remaining: 97, resetAfter: .seconds(2_592),
          retryAfter: nil, effectiveWindow: .seconds(864))
      ),
    ]
    let quota = ServerQuota(
      status: 429,
      fields: [
        (RateLimitFields.policyName, RateLimitFields.policy(decisions)),
        (RateLimitFields.stateName, RateLimitFields.state(decisions)),
        (RateLimitFields.retryAfterName, "2"),
      ])
    #expect(
      quota.policies == [
        Policy(name: "burst", quota: 10, window: .seconds(10), remaining: 0, effectiveWindow: .seconds(2)),
        Policy(
          name: "daily \"x\"", quota: 100, window: .seconds(86_400), remaining: 97, effectiveWindow: .seconds(864)),
      ])
    #expect(quota.wait == .seconds(2))
  }

  /// No header value traps (SPEC 4.3.1, issue 53 item 11): a `Date` of year 1 and a Unix time near `Int64.max`
  /// trapped subtracting one from the other. A distance from the reference that leaves `Int64` seconds, like a
  /// value past `Int64.max`, is ignored as malformed.
  @Test func aHugeResetAgainstAnAncientDateIsIgnored() {
    let ancient = ("Date", "Mon, 01 Jan 0001 00:00:00 GMT")
    for reset in ["9223372036854775807", "9223372036854775000.5", "99999999999999999999", "99999999999999999999.9"] {
      #expect(ServerQuota(status: 200, fields: [ancient, ("X-RateLimit-Reset", reset)]).policies.isEmpty, "\(reset)")
    }
    // Past Int64.max: malformed whatever the Date.
    let now = ("Date", "Sun, 09 Sep 2001 01:46:40 GMT")
    #expect(ServerQuota(status: 200, fields: [now, ("X-RateLimit-Reset", "99999999999999999999")]).policies.isEmpty)
    // In range, against the same dates: read.
    #expect(
      ServerQuota(status: 200, fields: [now, ("X-RateLimit-Reset", "9223372036854775807")]).policies.first?
        .effectiveWindow == .seconds(Int64.max - 1_000_000_000))
    #expect(
      ServerQuota(status: 200, fields: [ancient, ("X-RateLimit-Reset", "1000000000")]).policies.first?
        .effectiveWindow == .seconds(1_000_000_000 + 62_135_596_800))
    // Retry-After against the ancient date: a date of year 9999 is in range.
    #expect(
      ServerQuota(status: 429, fields: [ancient, ("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")]).retryAfter
        == .seconds(253_402_300_799 + 62_135_596_800))
  }

  /// A year, day or time with a sign is not an HTTP-date (4DIGIT, 2DIGIT): `Date: Mon, 01 Jan -999 …` was read as
  /// year −999 and trapped against a huge `X-RateLimit-Reset`. Ignored, the `Date` leaves the wall clock.
  @Test func signedYearsAreMalformed() {
    let date = ("Date", "Sun, 06 Nov 1994 08:49:37 GMT")
    for bad in [
      "Mon, 01 Jan -999 00:00:00 GMT", "Mon, 01 Jan +999 00:00:00 GMT", "Sun, +6 Nov 1994 08:51:37 GMT",
      "Sun, 06 Nov 1994 +8:51:37 GMT", "Sun, 06 Nov 1994 08:-1:37 GMT", "Sunday, 06-Nov-+4 08:51:37 GMT",
      "Sunday, 06-Nov--4 08:51:37 GMT", "Sun Nov -6 08:51:37 1994", "Sun Nov  6 08:51:37 -994",
    ] {
      #expect(ServerQuota(status: 429, fields: [date, ("Retry-After", bad)]).retryAfter == nil, "\(bad)")
    }
    let signed = ServerQuota(
      status: 200, fields: [("Date", "Mon, 01 Jan -999 00:00:00 GMT"), ("X-RateLimit-Reset", "9223372036854775807")])
    // Relative to the wall clock instead: at least 292 billion years less the present.
    #expect((signed.policies.first?.effectiveWindow ?? .zero) > .seconds(Int64.max - 100_000_000_000))
  }

  /// Every extreme value in every field at once: nothing traps, and what is read keeps the rules.
  @Test func extremeValuesInEveryFieldNeverTrap() {
    let dates = [
      "Mon, 01 Jan 0000 00:00:00 GMT", "Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:60 GMT",
      "Thu, 01 Jan 1970 00:00:00 GMT", "Wed, 31 Dec 1969 23:59:59 GMT", "Sunday, 06-Nov-00 08:49:37 GMT",
      "Sun Nov  6 08:49:37 0000", "Mon, 01 Jan -999 00:00:00 GMT", "Mon, 01 Jan 99999 00:00:00 GMT",
      "Sat, 31 Dec 2016 23:59:60 GMT",
    ]
    let numbers = [
      "0", "1", "999999999", "1000000000", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
      "18446744073709551616", String(repeating: "9", count: 400), "9223372036854775807.9", "0.000000000000001",
    ]
    for date in dates {
      for number in numbers + dates {
        let quota = ServerQuota(
          status: 429,
          fields: [
            ("Date", date), ("X-RateLimit-Reset", number), ("X-RateLimit-Limit", number),
            ("X-RateLimit-Remaining", number), ("Retry-After", number),
          ])
        #expect(quota.wait >= .zero)
        for policy in quota.policies {
          #expect((policy.quota ?? 0) >= 0 && (policy.remaining ?? 0) >= 0)
          #expect((policy.effectiveWindow ?? .zero) >= .zero)
        }
        let listed = ServerQuota(
          status: 200,
          fields: [("RateLimit-Policy", #""a";q=\#(number);w=\#(number)"#), ("RateLimit", #""a";r=\#(number);t=1"#)])
        #expect(listed.wait >= .zero)
      }
    }
  }

  /// Parsing takes time linear in the fields' size (SPEC 4.3.1): 542 KB of policy names took 76 s (each member
  /// looked for its policy among all the earlier ones). Correctness only here; the time is a benchmark's.
  @Test func aHalfMegabyteFieldParses() {
    let count = 40_000
    let policy = (0..<count).map { #""policy-\#($0)";q=\#($0);w=60"# }.joined(separator: ", ")
    let state = (0..<count).map { #""policy-\#($0)";r=\#($0 % 7);t=\#($0 % 11)"# }.joined(separator: ", ")
    #expect(policy.utf8.count > 500_000)
    let quota = ServerQuota(status: 200, fields: [("RateLimit-Policy", policy), ("RateLimit", state)])
    #expect(quota.policies.count == count)
    #expect(
      quota.policies.last
        == Policy(
          name: "policy-39999", quota: 39_999, window: .seconds(60), remaining: 39_999 % 7,
          effectiveWindow: .seconds(39_999 % 11)))
    // Many parameters on one member, the last of each key winning; many lines of one name.
    let parameters = #""p""# + (0..<count).map { ";k\($0)=\($0)" }.joined() + ";r=1;t=2;r=3"
    #expect(parameters.utf8.count > 400_000)
    #expect(
      ServerQuota(status: 200, fields: [("RateLimit", parameters)]).policies
        == [Policy(name: "p", remaining: 3, effectiveWindow: .seconds(2))])
    let lines = (0..<count).map { ("RateLimit", #""line-\#($0 % 100)";r=\#($0);t=1"#) }
    let joined = ServerQuota(status: 200, fields: lines)
    #expect(joined.policies.count == 100)
    #expect(joined.policies.last?.remaining == count - 1)
  }

  /// A seeded corpus of fields mutated byte by byte: nothing crashes, nothing hangs, and what parses keeps the
  /// rules (no negative count, no window below a second).
  @Test func aFuzzedCorpusNeverCrashes() {
    var random = SeededGenerator(seed: 4_3)
    let seeds = [
      #""burst";q=100;w=60,"daily";q=1000;w=86400"#, #""a";r=0;t=30;pk=:cHsdsRa894==:"#,
      "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "120",
      #"("a" "b");x, "c";y=%"d", "e";z=@12"#,
    ]
    let alphabet = Array(#" ,;=":()?*@%-.0123456789abcdefqrtwpkGMTNov\"#.utf8) + [0x00, 0x7F, 0xC3, 0xFF]
    var parsed = 0
    for _ in 0..<20_000 {
      var bytes = Array(seeds[Int(random.next() % UInt64(seeds.count))].utf8)
      for _ in 0...(random.next() % 4) {
        let position = Int(random.next() % UInt64(bytes.count + 1))
        let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
        switch random.next() % 3 {
        case 0: bytes.insert(byte, at: position)
        case 1 where position < bytes.count: bytes.remove(at: position)
        default: if position < bytes.count { bytes[position] = byte }
        }
      }
      let value = String(decoding: bytes, as: UTF8.self)
      let quota = ServerQuota(
        status: 429,
        fields: [
          ("RateLimit-Policy", value), ("RateLimit", value), ("Retry-After", value), ("Date", value),
          ("X-RateLimit-Reset", value), ("X-RateLimit-Remaining", value),
        ])
      parsed += quota.policies.count
      for policy in quota.policies {
        #expect((policy.quota ?? 0) >= 0 && (policy.remaining ?? 0) >= 0)
        #expect((policy.window ?? .seconds(1)) >= .seconds(1))
        #expect((policy.effectiveWindow ?? .zero) >= .zero)
      }
      #expect(quota.wait >= .zero)
    }
    #expect(parsed > 1_000)
  }
}
