import Foundation
import RateLimit
import RateLimitHTTP
import Testing

/// SPEC 4.2, "Keys": `AddressRange`, `clientKey(address:ipv6Prefix:)`, `RateLimitPolicy.permits(_:)` and the
/// problem details of a refusal.
@Suite struct AddressRangeTests {
  @Test func anIPv4RangeHoldsItsAddressesAndTheirMappedSpelling() throws {
    let office = try #require(AddressRange("10.20.0.0/16"))
    #expect(office.contains("10.20.0.0"))
    #expect(office.contains("10.20.255.255"))
    #expect(office.contains("::ffff:10.20.3.4"))
    #expect(office.contains("::FFFF:0a14:0304"))
    #expect(!office.contains("10.21.0.0"))
    #expect(!office.contains("10.19.255.255"))
    // Not an address without port or zone: false.
    for other in ["10.20.3.4:80", "10.20.3.4 ", "010.20.3.4", "10.20.3", "fe80::1%eth0", "[::1]", "", "office"] {
      #expect(!office.contains(other), "\(other)")
    }
  }

  @Test func anIPv6RangeInAnySpelling() throws {
    let documentation = try #require(AddressRange("2001:db8::/32"))
    #expect(documentation.contains("2001:db8::1"))
    #expect(documentation.contains("2001:DB8:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF"))
    #expect(!documentation.contains("2001:db9::"))
    #expect(!documentation.contains("10.0.0.1"))
    #expect(try #require(AddressRange("::/0")).contains("203.0.113.7"))
    #expect(try #require(AddressRange("::/0")).contains("::1"))
    #expect(try #require(AddressRange("0.0.0.0/0")).contains("::ffff:1.2.3.4"))
    #expect(try #require(AddressRange("0.0.0.0/0")).contains("2001:db8::1") == false)
    #expect(try #require(AddressRange("::1/128")).contains("0:0:0:0:0:0:0:1"))
  }

  @Test func rangesHoldingTheSameAddressesAreEqual() {
    #expect(AddressRange("10.20.3.4/16") == AddressRange("10.20.0.0/16"))
    #expect(AddressRange("10.0.0.0/8") == AddressRange("::ffff:10.0.0.0/104"))
    #expect(AddressRange("2001:db8:ffff::/32") == AddressRange("2001:0db8::/32"))
    #expect(AddressRange("10.0.0.0/8") != AddressRange("10.0.0.0/9"))
    #expect(Set([AddressRange("10.0.0.0/8")!, AddressRange("10.1.2.3/8")!]).count == 1)
  }

  @Test func anythingElseIsNil() {
    for bad in [
      "10.0.0.0", "10.0.0.0/33", "10.0.0.0/08", "10.0.0.0/-1", "10.0.0.0/", "/8", "10.0.0/8", "010.0.0.0/8",
      "256.0.0.0/8", "2001:db8::/129", "fe80::/10%eth0", "fe80::%eth0/10", "[::1]/128", "::/0/0", "10.0.0.0/8 ",
      "2001:db8:::/32", "1:2:3:4:5:6:7:8:9/64",
    ] {
      #expect(AddressRange(bad) == nil, "\(bad)")
    }
  }

  @Test func clientKeysByAnotherIPv6Prefix() {
    let address = "2001:db8:aa:bbcc:1::1"
    #expect(clientKey(address: address, ipv6Prefix: 48) == "2001:db8:aa::/48")
    #expect(clientKey(address: address, ipv6Prefix: 56) == "2001:db8:aa:bb00::/56")
    #expect(clientKey(address: address, ipv6Prefix: 64) == clientKey(address: address))
    #expect(clientKey(address: address, ipv6Prefix: 128) == "2001:db8:aa:bbcc:1:0:0:1/128")
    #expect(clientKey(address: "[2001:db8:aa:bbcc::9]:443", ipv6Prefix: 56) == "2001:db8:aa:bb00::/56")
    // IPv4, and IPv6 carrying IPv4, as `clientKey(address:)`.
    #expect(clientKey(address: "203.0.113.7", ipv6Prefix: 48) == "203.0.113.7")
    #expect(clientKey(address: "64:ff9b::203.0.113.7", ipv6Prefix: 48) == "203.0.113.7")
    #expect(clientKey(address: "unknown", ipv6Prefix: 48) == nil)
    // Two addresses of one /56 share a key at 56, not at 64.
    #expect(
      clientKey(address: "2001:db8:1:200::1", ipv6Prefix: 56) == clientKey(address: "2001:db8:1:2ff::1", ipv6Prefix: 56)
    )
    #expect(clientKey(address: "2001:db8:1:200::1") != clientKey(address: "2001:db8:1:2ff::1"))
  }

  @Test func aPolicyTakesAnotherCost() {
    let limiter = KeyedRateLimiter<String>(limit: 10, per: .seconds(60))
    let plan = RateLimitPolicy("free", limiter)
    let export = plan.permits(5)
    #expect(export.name == "free")
    #expect(export.permits == 5)
    #expect(plan.permits == 1)
    #expect((export.limiter as? KeyedRateLimiter<String>) === limiter)
  }

  @Test func aRefusalInProblemDetailsIsValidJSON() async throws {
    let limiter = KeyedRateLimiter<String>(limit: 1, per: .seconds(60))
    let gate = RateLimitGate([RateLimitPolicy(#"se"arch\"#, limiter)], refusal: .problemDetails)
    _ = try await gate.decide(key: "k")
    let outcome = try await gate.decide(key: "k")
    let answer = try #require(gate.answer(for: outcome, key: "k"))
    #expect(answer.status == 429)
    #expect(answer.contentType == "application/problem+json")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
    #expect(json["type"] as? String == "https://iana.org/assignments/http-problem-types#quota-exceeded")
    #expect(json["title"] as? String == "Too Many Requests")
    #expect(json["status"] as? Int == 429)
    #expect(json["violated-policies"] as? [String] == [#"se"arch\"#])
    // The default stays 4.1's text.
    let text = RateLimitGate([RateLimitPolicy("search", limiter)])
    let plain = try #require(text.answer(for: try await text.decide(key: "k"), key: "k"))
    #expect(plain.contentType == "text/plain; charset=utf-8")
    #expect(plain.body == "Too Many Requests\n")
  }
}
