import RateLimitHTTP
import Testing

@Suite struct ClientKeyTests {
  @Test(arguments: [
    ("203.0.113.7", "203.0.113.7"),
    ("203.0.113.7:5000", "203.0.113.7"),
    (" 10.0.0.1 ", "10.0.0.1"),
    ("2001:DB8:0:1:aaaa::1", "2001:db8:0:1::/64"),
    ("2001:db8:0:1:ffff:ffff:ffff:ffff", "2001:db8:0:1::/64"),
    ("[2001:db8:0:1::9]:443", "2001:db8:0:1::/64"),
    ("fe80::1%eth0", "fe80:0:0:0::/64"),
    ("::1", "0:0:0:0::/64"),
    ("::ffff:203.0.113.7", "203.0.113.7"),
    ("::ffff:cb00:7107", "203.0.113.7"),
  ])
  func keys(address: String, key: String) {
    #expect(clientKey(address: address) == key)
  }

  @Test(arguments: ["", "unknown", "256.1.1.1", "1.2.3", "1:2:3:4:5:6:7:8:9", "2001:db8::1::2", "gggg::1"])
  func notAnAddress(address: String) {
    #expect(clientKey(address: address) == nil)
  }

  @Test func rotatingWithinOne64SharesAKey() {
    let keys = Set(
      ["2001:db8:aa:bb::1", "2001:db8:aa:bb:1234:5678:9abc:def0", "2001:0db8:00aa:00bb::ffff"].map {
        clientKey(address: $0)
      })
    #expect(keys == ["2001:db8:aa:bb::/64"])
    #expect(clientKey(address: "2001:db8:aa:bc::1") != clientKey(address: "2001:db8:aa:bb::1"))
  }
}

@Suite struct ClientAddressTests {
  @Test func noTrustedProxyNeverReadsTheHeader() {
    #expect(clientAddress(peer: "198.51.100.1", forwardedFor: ["6.6.6.6"], trustedProxies: 0) == "198.51.100.1")
    #expect(
      clientAddress(peer: "198.51.100.1", forwardedFor: ["6.6.6.6, 7.7.7.7"], trustedProxies: -1) == "198.51.100.1")
  }

  @Test func theEntryEachTrustedProxyAppended() {
    // The client sent a spoofed entry; proxy A appended the client, proxy B appended A.
    let header = ["1.1.1.1, 203.0.113.7", "10.0.0.2"]
    #expect(clientAddress(peer: "10.0.0.3", forwardedFor: header, trustedProxies: 1) == "10.0.0.2")
    #expect(clientAddress(peer: "10.0.0.3", forwardedFor: header, trustedProxies: 2) == "203.0.113.7")
    #expect(clientAddress(peer: "10.0.0.3", forwardedFor: header, trustedProxies: 3) == "1.1.1.1")
  }

  @Test func fewerEntriesThanProxiesIsThePeer() {
    #expect(clientAddress(peer: "10.0.0.3", forwardedFor: ["203.0.113.7"], trustedProxies: 2) == "10.0.0.3")
    #expect(clientAddress(peer: "10.0.0.3", forwardedFor: [], trustedProxies: 1) == "10.0.0.3")
  }
}

/// SPEC 4.1.1, "keys behind proxies".
@Suite struct ClientKeysBehindProxiesTests {
  /// An entry at the trusted position that is not an address keys the request by the peer: 4.1 returned the
  /// entry, whose key is `nil`, so the request was not limited at all.
  @Test(arguments: ["unknown", "_hidden", "for=1.1.1.1", "1.1.1.1;x", "", "  "])
  func aNonAddressEntryAtTheTrustedPositionIsThePeer(entry: String) {
    let address = clientAddress(peer: "198.51.100.1", forwardedFor: ["6.6.6.6, \(entry)"], trustedProxies: 1)
    #expect(address == "198.51.100.1")
    #expect(clientKey(address: address) == "198.51.100.1")
  }

  /// The NAT64 well-known prefix and IPv4-compatible addresses key by the IPv4 address they carry; 4.1 put every
  /// NAT64 client in one /64, and `::a.b.c.d` beside `::1`.
  @Test(arguments: [
    ("64:ff9b::203.0.113.7", "203.0.113.7"),
    ("64:ff9b::cb00:7107", "203.0.113.7"),
    ("64:ff9b::198.51.100.9", "198.51.100.9"),
    ("::203.0.113.7", "203.0.113.7"),
    ("::1", "0:0:0:0::/64"),
    ("::", "0:0:0:0::/64"),
    ("64:ff9b:1::1", "64:ff9b:1:0::/64"),
  ])
  func embeddedIPv4(address: String, key: String) {
    #expect(clientKey(address: address) == key)
  }

  /// `clientAddress` reads only the `trustedProxies` entries on the right: a header of 100,000 entries costs
  /// what one of three does. Counted, not timed: the entries read are the ones that must parse.
  @Test func onlyTheTrustedEntriesAreRead() {
    // Garbage on the left that no parser of the whole header could take for entries; the right is clean.
    let flood = String(repeating: "x,", count: 100_000) + "203.0.113.7, 10.0.0.2"
    #expect(clientAddress(peer: "10.0.0.3", forwardedFor: [flood], trustedProxies: 2) == "203.0.113.7")
    #expect(clientAddress(peer: "10.0.0.3", forwardedFor: [flood, "10.0.0.4"], trustedProxies: 2) == "10.0.0.2")
    #expect(
      clientAddress(peer: "10.0.0.3", forwardedFor: ["1.1.1.1", "2.2.2.2, 3.3.3.3"], trustedProxies: 3) == "1.1.1.1")
    #expect(
      clientAddress(peer: "10.0.0.3", forwardedFor: ["1.1.1.1", "2.2.2.2, 3.3.3.3"], trustedProxies: 4) == "10.0.0.3")
  }
}

/// SPEC 4.3.1: `clientKey(peer:forwardedFor:trustedProxies:ipv6Prefix:)`, the key the address initializers give a
/// request, for a `select` closure: 4.1's rules, 4.1.1's non-address entries, `ipv6Prefix`; `nil` without a peer.
@Suite struct ClientKeyOfARequestTests {
  /// (peer, X-Forwarded-For values, trusted proxies, IPv6 prefix, key).
  static let cases: [(String, [String], Int, Int, String?)] = [
    ("198.51.100.1", [], 0, 64, "198.51.100.1"),
    ("198.51.100.1", ["6.6.6.6"], 0, 64, "198.51.100.1"),  // no trusted proxy: the header is never read
    ("198.51.100.1:5000", ["6.6.6.6"], -1, 64, "198.51.100.1"),
    ("10.0.0.3", ["1.1.1.1, 203.0.113.7", "10.0.0.2"], 1, 64, "10.0.0.2"),
    ("10.0.0.3", ["1.1.1.1, 203.0.113.7", "10.0.0.2"], 2, 64, "203.0.113.7"),
    ("10.0.0.3", ["1.1.1.1, 203.0.113.7", "10.0.0.2"], 3, 64, "1.1.1.1"),
    ("10.0.0.3", ["203.0.113.7"], 2, 64, "10.0.0.3"),  // fewer entries than proxies: the peer
    ("10.0.0.3", ["6.6.6.6, unknown"], 1, 64, "10.0.0.3"),  // 4.1.1: not an address, the peer
    ("10.0.0.3", ["6.6.6.6, _hidden"], 1, 64, "10.0.0.3"),
    ("10.0.0.3", ["for=1.1.1.1"], 1, 64, "10.0.0.3"),
    ("10.0.0.3", ["  "], 1, 64, "10.0.0.3"),
    ("10.0.0.3", ["2001:db8:aa:bbcc:1::1"], 1, 64, "2001:db8:aa:bbcc::/64"),
    ("10.0.0.3", ["2001:db8:aa:bbcc:1::1"], 1, 48, "2001:db8:aa::/48"),
    ("10.0.0.3", ["[2001:db8:aa:bbcc:1::1]:443"], 1, 56, "2001:db8:aa:bb00::/56"),
    ("2001:db8:aa:bbcc:1::1", [], 0, 128, "2001:db8:aa:bbcc:1:0:0:1/128"),
    ("::ffff:203.0.113.7", [], 0, 48, "203.0.113.7"),
    ("10.0.0.3", ["64:ff9b::203.0.113.7"], 1, 64, "203.0.113.7"),
    ("fe80::1%eth0", ["9.9.9.9"], 0, 64, "fe80:0:0:0::/64"),
    ("not an address", [], 0, 64, nil),
  ]

  @Test(arguments: cases)
  func keysAsTheAddressInitializersDo(
    peer: String, forwardedFor: [String], trustedProxies: Int, ipv6Prefix: Int, key: String?
  ) {
    let made = clientKey(
      peer: peer, forwardedFor: forwardedFor, trustedProxies: trustedProxies, ipv6Prefix: ipv6Prefix)
    #expect(made == key)
    // The fixed-list rules, composed by hand, answer the same.
    let address = clientAddress(peer: peer, forwardedFor: forwardedFor, trustedProxies: trustedProxies)
    #expect(made == clientKey(address: address, ipv6Prefix: ipv6Prefix))
  }

  /// No peer address (a Unix socket, a test without one): `nil`, whatever the forwarding header says.
  @Test func withoutAPeerThereIsNoKey() {
    #expect(clientKey(peer: nil, forwardedFor: [], trustedProxies: 0) == nil)
    #expect(clientKey(peer: nil, forwardedFor: ["203.0.113.7"], trustedProxies: 1) == nil)
    #expect(clientKey(peer: nil, forwardedFor: ["203.0.113.7"], trustedProxies: 1, ipv6Prefix: 48) == nil)
  }

  /// The default prefix is 64, `clientKey(address:)`'s.
  @Test func theDefaultPrefixIs64() {
    #expect(clientKey(peer: "2001:db8:0:1:aaaa::1", forwardedFor: [], trustedProxies: 0) == "2001:db8:0:1::/64")
  }
}
