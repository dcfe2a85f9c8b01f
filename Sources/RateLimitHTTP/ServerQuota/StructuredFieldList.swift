/// A Structured Field list (RFC 9651, section 4.2.1), parsed as far as ``ServerQuota`` reads it: each member's
/// item (a String, or anything else) and its parameters (Integers, byte sequences, anything else). A field that
/// does not parse is `nil` as a whole, as the RFC requires.
struct StructuredFieldList {
  /// A bare item: what a quota field may carry, and `other` for every other kind (Decimal, Token, Boolean, Date,
  /// Display String), which parses but means nothing here.
  enum Item: Equatable {
    case string(String)
    case integer(Int64)
    case bytes([UInt8])
    case other
  }

  struct Member {
    /// `nil` for an inner list.
    var item: Item?
    var parameters: [(key: String, value: Item)]
  }

  var members: [Member] = []

  /// Parses `field`; `nil` if it is not a valid list.
  init?(_ field: String) {
    var parser = Parser(Array(field.utf8))
    guard let members = parser.list() else { return nil }
    self.members = members
  }
}

/// RFC 9651's parsing algorithms (section 4.2), over the field's bytes.
private struct Parser {
  let bytes: [UInt8]
  var index = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  mutating func skip(_ allowed: (UInt8) -> Bool) {
    while let byte = current, allowed(byte) { index += 1 }
  }

  static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 }
  static func isOWS(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
  static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
  static func isLowerAlpha(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) }
  static func isAlpha(_ byte: UInt8) -> Bool { isLowerAlpha(byte) || (0x41...0x5A).contains(byte) }
  /// The symbols a Token may hold after its first character: tchar's, ":" and "/" (made once, not per byte).
  static let tokenSymbols: Set<UInt8> = Set("!#$%&'*+-.^_`|~:/".utf8)

  /// 4.2.1: a list; leading and trailing spaces discarded first (4.2).
  mutating func list() -> [StructuredFieldList.Member]? {
    skip(Self.isSpace)
    var end = bytes.count
    while end > index, bytes[end - 1] == 0x20 { end -= 1 }
    let trimmed = Parser(Array(bytes[index..<end]))
    var parser = trimmed
    var members: [StructuredFieldList.Member] = []
    while parser.current != nil {
      guard let member = parser.member() else { return nil }
      members.append(member)
      parser.skip(Self.isOWS)
      guard let byte = parser.current else { return members }
      guard byte == 0x2C else { return nil }  // ","
      parser.index += 1
      parser.skip(Self.isOWS)
      if parser.current == nil { return nil }  // a trailing comma
    }
    return members
  }

  /// 4.2.1.1: an item or an inner list.
  mutating func member() -> StructuredFieldList.Member? {
    if current == 0x28 {  // "("
      guard innerList(), let parameters = parameters() else { return nil }
      return .init(item: nil, parameters: parameters)
    }
    guard let item = bareItem(), let parameters = parameters() else { return nil }
    return .init(item: item, parameters: parameters)
  }

  /// 4.2.1.2: an inner list, read and discarded.
  mutating func innerList() -> Bool {
    index += 1
    while true {
      skip(Self.isSpace)
      if current == 0x29 {  // ")"
        index += 1
        return true
      }
      guard bareItem() != nil, parameters() != nil else { return false }
      guard let byte = current, byte == 0x20 || byte == 0x29 else { return false }
    }
  }

  /// 4.2.3.2: parameters; a later key overwrites an earlier one's value, in its place (found by hashing, so
  /// that many parameters take linear time: removing the earlier one took a pass over all of them).
  mutating func parameters() -> [(key: String, value: StructuredFieldList.Item)]? {
    var parameters: [(key: String, value: StructuredFieldList.Item)] = []
    var positions: [String: Int] = [:]
    while current == 0x3B {  // ";"
      index += 1
      skip(Self.isSpace)
      guard let key = key() else { return nil }
      var value = StructuredFieldList.Item.other  // a Boolean true
      if current == 0x3D {  // "="
        index += 1
        guard let item = bareItem() else { return nil }
        value = item
      }
      if let position = positions[key] {
        parameters[position].value = value
      } else {
        positions[key] = parameters.count
        parameters.append((key, value))
      }
    }
    return parameters
  }

  /// 4.2.3.3: a key.
  mutating func key() -> String? {
    guard let first = current, Self.isLowerAlpha(first) || first == 0x2A else { return nil }
    let start = index
    skip { Self.isLowerAlpha($0) || Self.isDigit($0) || $0 == 0x5F || $0 == 0x2D || $0 == 0x2E || $0 == 0x2A }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  /// 4.2.3.1: a bare item.
  mutating func bareItem() -> StructuredFieldList.Item? {
    guard let byte = current else { return nil }
    switch byte {
    case 0x2D, 0x30...0x39: return number()
    case 0x22: return string()
    case 0x3A: return byteSequence()
    case 0x3F:  // "?": a Boolean
      index += 1
      guard let value = current, value == 0x30 || value == 0x31 else { return nil }
      index += 1
      return .other
    case 0x40:  // "@": a Date
      index += 1
      guard case .integer? = number() else { return nil }
      return .other
    case 0x25: return displayString()
    default:
      guard Self.isAlpha(byte) || byte == 0x2A else { return nil }
      // A Token: tchar, ":" or "/".
      skip { byte in Self.isAlpha(byte) || Self.isDigit(byte) || Self.tokenSymbols.contains(byte) }
      return .other
    }
  }

  /// 4.2.4: an Integer (at most 15 digits) or a Decimal (at most 12 integer and 3 fraction digits).
  mutating func number() -> StructuredFieldList.Item? {
    var sign: Int64 = 1
    if current == 0x2D {
      sign = -1
      index += 1
    }
    let start = index
    skip(Self.isDigit)
    let integerDigits = index - start
    guard integerDigits > 0 else { return nil }
    if current == 0x2E {  // "."
      guard integerDigits <= 12 else { return nil }
      index += 1
      let fractionStart = index
      skip(Self.isDigit)
      let fractionDigits = index - fractionStart
      guard (1...3).contains(fractionDigits) else { return nil }
      return .other
    }
    guard integerDigits <= 15 else { return nil }
    var value: Int64 = 0
    for digit in bytes[start..<index] { value = value * 10 + Int64(digit - 0x30) }
    return .integer(sign * value)
  }

  /// 4.2.5: a String: printable ASCII, `\"` and `\\` escaped.
  mutating func string() -> StructuredFieldList.Item? {
    index += 1
    var value: [UInt8] = []
    while let byte = current {
      index += 1
      switch byte {
      case 0x5C:  // "\\"
        guard let escaped = current, escaped == 0x22 || escaped == 0x5C else { return nil }
        index += 1
        value.append(escaped)
      case 0x22: return .string(String(decoding: value, as: UTF8.self))
      case 0x20...0x7E: value.append(byte)
      default: return nil
      }
    }
    return nil
  }

  /// 4.2.7: a Byte Sequence, base64 between colons.
  mutating func byteSequence() -> StructuredFieldList.Item? {
    index += 1
    let start = index
    skip { $0 != 0x3A }
    guard current == 0x3A else { return nil }
    let encoded = bytes[start..<index]
    index += 1
    guard let decoded = Base64.decode(encoded) else { return nil }
    return .bytes(decoded)
  }

  /// 4.2.10: a Display String, read and discarded.
  mutating func displayString() -> StructuredFieldList.Item? {
    index += 1
    guard current == 0x22 else { return nil }
    index += 1
    while let byte = current {
      index += 1
      if byte == 0x22 { return .other }
      guard (0x20...0x7E).contains(byte) else { return nil }
    }
    return nil
  }
}

/// Base64 (RFC 4648), padding optional as RFC 9651 allows.
enum Base64 {
  static func decode(_ encoded: ArraySlice<UInt8>) -> [UInt8]? {
    var bits: UInt32 = 0
    var count = 0
    var output: [UInt8] = []
    var padding = 0
    for byte in encoded {
      if byte == 0x3D {  // "="
        padding += 1
        continue
      }
      guard padding == 0, let value = sextet(byte) else { return nil }
      bits = bits << 6 | UInt32(value)
      count += 6
      if count >= 8 {
        count -= 8
        output.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
      }
    }
    return padding <= 2 ? output : nil
  }

  static func sextet(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x41...0x5A: byte - 0x41
    case 0x61...0x7A: byte - 0x61 + 26
    case 0x30...0x39: byte - 0x30 + 52
    case 0x2B: 62
    case 0x2F: 63
    default: nil
    }
  }
}
