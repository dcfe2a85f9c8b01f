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
