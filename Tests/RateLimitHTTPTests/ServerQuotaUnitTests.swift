import RateLimitHTTP
import Testing

/// SPEC 4.4, ServerQuota: `Policy.unit` is `qu` ("requests" when absent); `wait` ignores a concurrency policy's
/// `r`, but a 429's `Retry-After` still wins.
@Suite struct ServerQuotaUnitTests {
  typealias Policy = ServerQuota.Policy

  @Test func quIsTheUnitAndRequestsWhenAbsent() {
    let quota = ServerQuota(
      status: 200,
      fields: [
        (
          "RateLimit-Policy",
          #""rpm";q=60;w=60, "inflight";q=4;qu="concurrent-requests", "bytes";q=1000;w=1;qu="content-bytes""#
        ),
        ("RateLimit", #""rpm";r=59;t=1, "inflight";r=2, "bytes";r=10;t=1"#),
      ])
    #expect(
      quota.policies == [
        Policy(name: "rpm", quota: 60, window: .seconds(60), remaining: 59, effectiveWindow: .seconds(1)),
        Policy(name: "inflight", quota: 4, remaining: 2, unit: "concurrent-requests"),
        Policy(
          name: "bytes", quota: 1000, window: .seconds(1), remaining: 10, effectiveWindow: .seconds(1),
          unit: "content-bytes"),
      ])
    #expect(quota.policies.map(\.unit) == ["requests", "concurrent-requests", "content-bytes"])
  }

  /// `==` compares the unit; a `qu` that is not a String makes its member malformed (ignored); a later member
  /// without `qu` keeps the unit said before.
  @Test func theUnitIsComparedAndMalformedUnitsIgnored() {
    #expect(Policy(name: "a", unit: "concurrent-requests") != Policy(name: "a"))
    #expect(Policy(name: "a", unit: "requests") == Policy(name: "a"))
    let malformed = ServerQuota(status: 200, fields: [("RateLimit-Policy", #""a";q=4;qu=5, "b";q=2;qu=?1"#)])
    #expect(malformed.policies.isEmpty)
    let merged = ServerQuota(
      status: 200, fields: [("RateLimit-Policy", #""a";q=4;qu="concurrent-requests", "a";q=5"#)])
    #expect(merged.policies == [Policy(name: "a", quota: 5, unit: "concurrent-requests")])
  }

  /// `wait` leaves out a concurrency policy with nothing remaining (it has no window); a rate policy still counts;
  /// a 429 with `Retry-After: 1` waits 1 s, as any 429.
  @Test func waitIgnoresAConcurrencyPolicyButNotRetryAfter() {
    let busy = ServerQuota(
      status: 200,
      fields: [
        ("RateLimit-Policy", #""inflight";q=4;qu="concurrent-requests""#), ("RateLimit", #""inflight";r=0;t=30"#),
      ])
    #expect(busy.wait == .zero)
    let both = ServerQuota(
      status: 200,
      fields: [
        ("RateLimit-Policy", #""rpm";q=60;w=60, "inflight";q=4;qu="concurrent-requests""#),
        ("RateLimit", #""rpm";r=0;t=12, "inflight";r=0;t=30"#),
      ])
    #expect(both.wait == .seconds(12))
    let refused = ServerQuota(
      status: 429,
      fields: [
        ("Retry-After", "1"), ("RateLimit-Policy", #""inflight";q=4;qu="concurrent-requests""#),
        ("RateLimit", #""inflight";r=0"#),
      ])
    #expect(refused.wait == .seconds(1))
  }
}
