/// A block of addresses in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`), for exemptions and allow lists.
///
/// ```swift
/// let office = AddressRange("10.20.0.0/16")!
/// office.contains("10.20.3.4")          // true
/// office.contains("::ffff:10.20.3.4")   // true: IPv4-mapped
/// office.contains("10.21.0.1")          // false
/// ```
///
/// Every address is read as IPv6: an IPv4 address `a` as `::ffff:a`, an IPv4 range `a/p` as `::ffff:a/(96 + p)`.
/// So an IPv4-mapped IPv6 address is in an IPv4 range, `::/0` holds every address, and two ranges are equal when
/// they hold the same addresses (bits past the prefix are ignored).
///
/// | range | reads |
/// | --- | --- |
/// | `203.0.113.0/24` | four decimal octets without leading zeros, a prefix 0–32 |
/// | `2001:db8::/32`, `::ffff:10.0.0.0/104` | any RFC 4291 spelling of IPv6, no zone, a prefix 0–128 |
/// | `10.0.0.0`, `10.0.0.0/33`, `10.0.0.0/08`, `fe80::/10%eth0`, `[::1]/128` | `nil` |
public struct AddressRange: Sendable, Hashable {
  /// The range's first address, as 128 bits, with every bit past the prefix zero.
  private let network: (high: UInt64, low: UInt64)
  /// The prefix length, 0 to 128, on the IPv6 reading.
  private let prefixLength: Int

  /// Reads `address/prefix`; `nil` for anything else.
  public init?(_ cidr: String) {
    let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let prefix = Self.decimal(parts[1]), let address = Self.bits(parts[0]) else {
      return nil
    }
    let length = address.isIPv4 ? 96 + prefix : prefix
    guard prefix <= (address.isIPv4 ? 32 : 128) else { return nil }
    prefixLength = length
    network = Self.masked(address.bits, to: length)
  }

  /// Whether `address` (IPv4 or IPv6, without port or zone) is in the range; `false` for anything else.
  ///
  /// - Parameter address: An address as text: `10.20.3.4`, `2001:db8::1`, `::ffff:10.20.3.4`.
  public func contains(_ address: String) -> Bool {
    guard let address = Self.bits(Substring(address)) else { return false }
    let masked = Self.masked(address.bits, to: prefixLength)
    return masked.high == network.high && masked.low == network.low
  }

  /// Whether both hold the same addresses.
  public static func == (left: AddressRange, right: AddressRange) -> Bool {
    left.prefixLength == right.prefixLength && left.network.high == right.network.high
      && left.network.low == right.network.low
  }

  /// Hashes what `==` compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(prefixLength)
    hasher.combine(network.high)
    hasher.combine(network.low)
  }

  /// A prefix length in decimal without leading zeros.
  private static func decimal(_ text: Substring) -> Int? {
    guard (1...3).contains(text.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
      text.count == 1 || text.first != "0"
    else { return nil }
    return Int(text)
  }

  /// An address as 128 bits (IPv4 mapped into `::ffff:0:0/96`), and whether it was written as IPv4.
  static func bits(_ text: Substring) -> (bits: (high: UInt64, low: UInt64), isIPv4: Bool)? {
    if isCanonicalIPv4(String(text)), let v4 = IPv4(text) {
      let value = v4.bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      return ((0, 0xffff_0000_0000 | value), true)
    }
    guard !text.contains("%"), !text.contains("["), let v6 = IPv6(text) else { return nil }
    let high = v6.groups[0..<4].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
    let low = v6.groups[4..<8].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
    return ((high, low), false)
  }

  /// The first `length` bits of `bits`, the rest zero.
  static func masked(_ bits: (high: UInt64, low: UInt64), to length: Int) -> (high: UInt64, low: UInt64) {
    func mask(_ count: Int) -> UInt64 { count <= 0 ? 0 : count >= 64 ? .max : ~(UInt64.max >> UInt64(count)) }
    return (bits.high & mask(length), bits.low & mask(length - 64))
  }
}

/// ``clientKey(address:)`` with another IPv6 prefix length: an IPv6 client is keyed by its first `ipv6Prefix`
/// bits (an IPv4 client, and an IPv6 address that carries one, as in ``clientKey(address:)``).
///
/// | `ipv6Prefix` | `2001:db8:aa:bbcc:1::1` keys as |
/// | --- | --- |
/// | 48 | `2001:db8:aa::/48` |
/// | 56 | `2001:db8:aa:bb00::/56` |
/// | 64 (``clientKey(address:)``) | `2001:db8:aa:bbcc::/64` |
/// | 128 | `2001:db8:aa:bbcc:1:0:0:1/128` |
///
/// Many providers hand a subscriber a /56 or a /48: keying by /56 gives such a client one key instead of 256
/// (express-rate-limit 8 keys by /56 by default).
///
/// - Parameters:
///   - address: The client's address as text, as ``clientKey(address:)`` reads it (a port, brackets and a zone
///     are dropped).
///   - ipv6Prefix: 48 to 128; anything else traps, naming the value.
/// - Returns: The key; `nil` if `address` is not an IP address.
public func clientKey(address: String, ipv6Prefix: Int) -> String? {
  requireIPv6Prefix(ipv6Prefix)
  if ipv6Prefix == 64 { return clientKey(address: address) }
  guard let key = clientKey(address: address) else { return nil }
  // An IPv4 key (from an IPv4 address or one an IPv6 address carries) stays as it is.
  guard key.hasSuffix("::/64") else { return key }
  var text = Substring(address).trimmingSpaces
  if text.first == "[", let close = text.firstIndex(of: "]") { text = text[text.index(after: text.startIndex)..<close] }
  if let percent = text.firstIndex(of: "%") { text = text[..<percent] }
  guard let v6 = IPv6(text) else { return nil }
  let groups = (ipv6Prefix + 15) / 16
  let kept = (0..<groups).map { index -> String in
    let bits = min(16, ipv6Prefix - index * 16)
    let mask: UInt16 = bits >= 16 ? .max : ~(UInt16.max >> UInt16(bits))
    return String(v6.groups[index] & mask, radix: 16)
  }
  return kept.joined(separator: ":") + (groups < 8 ? "::" : "") + "/\(ipv6Prefix)"
}

/// The check of `ipv6Prefix`, in the function and in the middlewares' initializers: 48 to 128.
package func requireIPv6Prefix(_ ipv6Prefix: Int) {
  if !(48...128).contains(ipv6Prefix) {
    fatalError("clientKey: ipv6Prefix must be from 48 to 128, got ipv6Prefix: \(ipv6Prefix)")
  }
}
