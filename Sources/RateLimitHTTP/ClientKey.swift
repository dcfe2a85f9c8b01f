/// The key of a client address: IPv4 as is; IPv6 by its /64 prefix; an IPv6 address that carries an IPv4
/// address (IPv4-mapped, NAT64's `64:ff9b::/96`, IPv4-compatible) as that IPv4 address.
///
/// | address | key |
/// | --- | --- |
/// | `203.0.113.7` | `203.0.113.7` |
/// | `2001:DB8:0:1:aaaa::1`, `2001:db8::1:ffff:0:0:2` | `2001:db8:0:1::/64` |
/// | `::ffff:203.0.113.7`, `64:ff9b::203.0.113.7`, `::203.0.113.7` | `203.0.113.7` |
/// | `[2001:db8::1]:443`, `203.0.113.7:5000`, `fe80::1%eth0` | the port and zone are dropped |
/// | `unknown`, `""` | `nil` |
///
/// A /64 is the smallest block one subscriber gets: a client that rotates addresses inside its own /64 (privacy
/// extensions do, every few hours or at will) keeps one key instead of getting a fresh quota each time. Many
/// providers hand a subscriber a /56 or a /48, though: such a client has 256 or 65,536 keys of its own (4.2's
/// `ipv6Prefix` chooses a shorter prefix).
///
/// - Returns: The key, in one canonical spelling; `nil` if `address` is not an IP address.
public func clientKey(address: String) -> String? {
  // Most peers: an IPv4 address already in canonical form is its own key (no parsing, no allocation).
  if isCanonicalIPv4(address) { return address }
  var text = Substring(address).trimmingSpaces
  if text.first == "[" {
    // [v6]:port
    guard let close = text.firstIndex(of: "]") else { return nil }
    text = text[text.index(after: text.startIndex)..<close]
  } else if let colon = text.firstIndex(of: ":"), text.lastIndex(of: ":") == colon {
    // v4:port
    text = text[..<colon]
  }
  if let percent = text.firstIndex(of: "%") { text = text[..<percent] }
  if let v4 = IPv4(text) { return v4.description }
  guard let v6 = IPv6(text) else { return nil }
  if let embedded = v6.embeddedIPv4 { return embedded.description }
  return v6.prefix64
}

/// ``clientKey(address:)`` of an IPv4 peer given as its 32 bits in host byte order (`203.0.113.7` is
/// `0xCB00_7107`): the same key, without text to print and parse. The middlewares key a socket's peer with it.
package func clientKey(ipv4 address: UInt32) -> String {
  // At most 15 bytes: a small string, never allocated.
  String(unsafeUninitializedCapacity: 15) { buffer in
    let bytes = buffer.baseAddress!
    var count = writeOctet(UInt8(truncatingIfNeeded: address >> 24), to: bytes)
    bytes[count] = UInt8(ascii: ".")
    count += 1 + writeOctet(UInt8(truncatingIfNeeded: address >> 16), to: bytes + count + 1)
    bytes[count] = UInt8(ascii: ".")
    count += 1 + writeOctet(UInt8(truncatingIfNeeded: address >> 8), to: bytes + count + 1)
    bytes[count] = UInt8(ascii: ".")
    return count + 1 + writeOctet(UInt8(truncatingIfNeeded: address), to: bytes + count + 1)
  }
}

/// Writes `octet` in decimal without leading zeros at `bytes`; returns how many bytes it wrote (1 to 3).
@inline(__always)
private func writeOctet(_ octet: UInt8, to bytes: UnsafeMutablePointer<UInt8>) -> Int {
  let zero = UInt8(ascii: "0")
  if octet >= 100 {
    bytes[0] = zero + octet / 100
    bytes[1] = zero + octet / 10 % 10
    bytes[2] = zero + octet % 10
    return 3
  }
  if octet >= 10 {
    bytes[0] = zero + octet / 10
    bytes[1] = zero + octet % 10
    return 2
  }
  bytes[0] = zero + octet
  return 1
}

/// Whether `text` is four decimal bytes without leading zeros, `203.0.113.7`: the spelling `IPv4` gives.
func isCanonicalIPv4(_ text: String) -> Bool {
  var parts = 0
  var value = 0
  var digits = 0
  var leadingZero = false
  for byte in text.utf8 {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"):
      if leadingZero { return false }
      if digits == 0 && byte == UInt8(ascii: "0") { leadingZero = true }
      value = value * 10 + Int(byte - UInt8(ascii: "0"))
      digits += 1
      if digits > 3 || value > 255 { return false }
    case UInt8(ascii: "."):
      if digits == 0 || parts == 3 { return false }
      (parts, value, digits, leadingZero) = (parts + 1, 0, 0, false)
    default:
      return false
    }
  }
  return parts == 3 && digits > 0
}

/// An IPv4 address: four decimal bytes.
struct IPv4: CustomStringConvertible {
  var bytes: [UInt8]

  init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  init?(_ text: Substring) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4 else { return nil }
    var bytes: [UInt8] = []
    for part in parts {
      guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
        let byte = UInt8(part)
      else { return nil }
      bytes.append(byte)
    }
    self.bytes = bytes
  }

  var description: String { bytes.map(String.init).joined(separator: ".") }
}

/// An IPv6 address: eight 16-bit groups.
struct IPv6 {
  var groups: [UInt16]

  init?(_ text: Substring) {
    guard text.contains(":") else { return nil }
    let halves = text.split(separator: "::", maxSplits: 2, omittingEmptySubsequences: false)
    guard halves.count <= 2 else { return nil }
    guard let head = Self.groups(halves[0], last: halves.count == 1) else { return nil }
    if halves.count == 1 {
      guard head.count == 8 else { return nil }
      groups = head
      return
    }
    guard let tail = Self.groups(halves[1], last: true), head.count + tail.count <= 7 else { return nil }
    groups = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
  }

  /// The groups of one side of `::`; the last group of the address may be a dotted IPv4 address.
  private static func groups(_ text: Substring, last: Bool) -> [UInt16]? {
    if text.isEmpty { return [] }
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    var groups: [UInt16] = []
    for (index, part) in parts.enumerated() {
      if last && index == parts.count - 1 && part.contains(".") {
        guard let v4 = IPv4(part) else { return nil }
        groups.append(UInt16(v4.bytes[0]) << 8 | UInt16(v4.bytes[1]))
        groups.append(UInt16(v4.bytes[2]) << 8 | UInt16(v4.bytes[3]))
        continue
      }
      guard (1...4).contains(part.count), part.allSatisfy(\.isHexDigit), let group = UInt16(part, radix: 16)
      else { return nil }
      groups.append(group)
    }
    return groups
  }

  /// The IPv4 address an IPv6 address carries: IPv4-mapped `::ffff:a.b.c.d`, the NAT64 well-known prefix
  /// `64:ff9b::a.b.c.d` (RFC 6052: behind NAT64 or SIIT every IPv4 client would otherwise share one /64), and
  /// IPv4-compatible `::a.b.c.d` (not `::` nor `::1`, whose last 32 bits are no IPv4 client's).
  var embeddedIPv4: IPv4? {
    let mapped = groups[0..<5].allSatisfy({ $0 == 0 }) && groups[5] == 0xffff
    let nat64 = groups[0] == 0x64 && groups[1] == 0xff9b && groups[2..<6].allSatisfy({ $0 == 0 })
    let compatible = groups[0..<6].allSatisfy({ $0 == 0 }) && groups[6] != 0
    guard mapped || nat64 || compatible else { return nil }
    return IPv4(bytes: [
      UInt8(groups[6] >> 8), UInt8(groups[6] & 0xff), UInt8(groups[7] >> 8), UInt8(groups[7] & 0xff),
    ])
  }

  /// The first 64 bits, as `2001:db8:0:1::/64`.
  var prefix64: String {
    groups[0..<4].map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
  }
}
