import Testing

@testable import RateLimitHTTP

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `clientKey`'s shortcut: an address already spelled as `IPv4` spells it is its own key. The shortcut must say
/// yes exactly when parsing would give back the same text.
@Suite struct CanonicalIPv4Tests {
  @Test(arguments: [
    ("203.0.113.7", true), ("0.0.0.0", true), ("255.255.255.255", true), ("10.0.0.1", true),
    ("256.0.0.1", false), ("01.2.3.4", false), ("1.2.3", false), ("1.2.3.4.5", false), ("1..3.4", false),
    ("1.2.3.4.", false), (".1.2.3", false), ("1.2.3.4:80", false), (" 1.2.3.4", false), ("", false),
    ("1234.1.1.1", false), ("::1", false),
  ])
  func knownSpellings(address: String, isCanonical: Bool) {
    #expect(isCanonicalIPv4(address) == isCanonical)
    if isCanonical { #expect(clientKey(address: address) == address) }
  }

  @Test func agreesWithParsingOnRandomDottedText() {
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array("0123456789.") + ["2", "5"]
    for _ in 0..<20_000 {
      let length = Int.random(in: 0...16, using: &generator)
      let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
      let parsed = IPv4(Substring(text))?.description
      #expect(isCanonicalIPv4(text) == (parsed == text), "\(text)")
    }
  }

  /// A socket's peer keyed from its bits gets the key its text would: edges, then random addresses.
  @Test func bitsKeyAsTheirTextDoes() {
    var generator = SystemRandomNumberGenerator()
    let edges: [UInt32] = [0, 1, 9, 10, 99, 100, 255, 0x7F00_0001, 0xCB00_7107, 0x0A0A_0A0A, 0x6464_6464, .max]
    for address in edges + (0..<20_000).map({ _ in UInt32.random(in: 0...UInt32.max, using: &generator) }) {
      let text = (0..<4).map { String(address >> UInt32(24 - 8 * $0) & 0xFF) }.joined(separator: ".")
      #expect(clientKey(ipv4: address) == clientKey(address: text), "\(text)")
    }
    #expect(clientKey(ipv4: 0xCB00_7107) == "203.0.113.7")
  }

  /// A socket's `sockaddr_in` as the system fills it in (`inet_pton`, network byte order) keys as its text does.
  @Test(arguments: ["203.0.113.7", "127.0.0.1", "0.0.0.0", "255.255.255.255", "10.200.3.45"])
  func aSocketAddressKeysAsItsTextDoes(text: String) {
    var address = sockaddr_in()
    #expect(inet_pton(AF_INET, text, &address.sin_addr) == 1)
    #expect(clientKey(ipv4: address) == text)
  }
}
