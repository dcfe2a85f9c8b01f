public import RateLimit

/// The header fields of draft-ietf-httpapi-ratelimit-headers-11 for a list of policies and their decisions, one
/// list member per policy in the order given:
///
/// ```
/// RateLimit-Policy: "search";q=10;w=10, "daily";q=100;w=86400
/// RateLimit: "search";r=7;t=4, "daily";r=93;t=86396
/// ```
///
/// `q` is the policy's `limit`, `w` its `window`, `r` the `remaining` permits and `t` the `resetAfter`, in
/// whole seconds rounded up. Names are Structured Field strings.
public enum RateLimitFields: Sendable {
  /// `RateLimit-Policy`: each policy's quota and window.
  public static let policyName = "RateLimit-Policy"
  /// `RateLimit`: what each policy has left for the request's key, and when.
  public static let stateName = "RateLimit"
  /// `Retry-After` (RFC 9110): whole seconds until a refused request may succeed.
  public static let retryAfterName = "Retry-After"
  /// `X-Forwarded-For`: the addresses proxies saw, appended left to right.
  public static let forwardedForName = "X-Forwarded-For"

  /// The `RateLimit-Policy` field's value.
  public static func policy(_ policies: [(name: String, decision: RateLimitDecision)]) -> String {
    var value = ""
    for (index, policy) in policies.enumerated() {
      let (limit, window) = (policy.decision.limit, policy.decision.window)
      appendPolicy(structuredString(policy.name), limit: limit, window: window, separated: index > 0, to: &value)
    }
    return value
  }

  /// The `RateLimit` field's value.
  public static func state(_ policies: [(name: String, decision: RateLimitDecision)]) -> String {
    var value = ""
    for (index, policy) in policies.enumerated() {
      appendState(structuredString(policy.name), policy.decision, separated: index > 0, to: &value)
    }
    return value
  }

  /// Appends one policy's `RateLimit-Policy` member, its name already a Structured Field string (what a
  /// ``RateLimitGate`` does once, not on every request).
  static func appendPolicy(
    _ quoted: String, limit: Int, window: Duration, separated: Bool, to value: inout String
  ) {
    if separated { value += ", " }
    value += quoted
    value += ";q="
    value += String(limit)
    value += ";w="
    value += String(wholeSeconds(window))
  }

  /// Appends one policy's `RateLimit` member, its name already a Structured Field string.
  static func appendState(_ quoted: String, _ decision: RateLimitDecision, separated: Bool, to value: inout String) {
    if separated { value += ", " }
    value += quoted
    value += ";r="
    value += String(max(0, decision.remaining))
    value += ";t="
    value += String(wholeSeconds(decision.resetAfter))
  }

  /// One policy's `RateLimit` value, as ``appendState(_:_:separated:to:)`` writes it, in one pass and one
  /// allocation: the one string an in-process grant makes.
  static func stateValue(_ quoted: String, _ decision: RateLimitDecision) -> String {
    let remaining = UInt64(max(0, decision.remaining))
    let reset = UInt64(wholeSeconds(decision.resetAfter))
    // The name, `;r=`, `;t=`, and two numbers of at most 20 digits.
    return String(unsafeUninitializedCapacity: quoted.utf8.count + 46) { buffer in
      let bytes = buffer.baseAddress!
      var count = 0
      if let copied = quoted.utf8.withContiguousStorageIfAvailable({ name in
        UnsafeMutableRawBufferPointer(start: bytes, count: name.count).copyMemory(from: UnsafeRawBufferPointer(name))
        return name.count
      }) {
        count = copied
      } else {
        for byte in quoted.utf8 {
          bytes[count] = byte
          count += 1
        }
      }
      (bytes[count], bytes[count + 1], bytes[count + 2]) = (UInt8(ascii: ";"), UInt8(ascii: "r"), UInt8(ascii: "="))
      count += 3 + writeDecimal(remaining, to: bytes + count + 3)
      (bytes[count], bytes[count + 1], bytes[count + 2]) = (UInt8(ascii: ";"), UInt8(ascii: "t"), UInt8(ascii: "="))
      count += 3 + writeDecimal(reset, to: bytes + count + 3)
      return count
    }
  }

  /// Writes `number` in decimal at `bytes` (room for 20 digits); returns how many bytes it wrote.
  @inline(__always)
  private static func writeDecimal(_ number: UInt64, to bytes: UnsafeMutablePointer<UInt8>) -> Int {
    var digits = 1
    var rest = number
    while rest >= 10 {
      rest /= 10
      digits += 1
    }
    rest = number
    var position = digits
    repeat {
      position -= 1
      bytes[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
      rest /= 10
    } while position > 0
    return digits
  }

  /// A Structured Field string (RFC 9651 §3.3.3): in quotes, `"` and `\` escaped; anything outside printable
  /// ASCII, which a string cannot hold, becomes `?`.
  public static func structuredString(_ text: String) -> String {
    // Most names need no escaping: one allocation.
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
      return "\"" + text + "\""
    }
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"", "\\":
        result.append("\\")
        result.unicodeScalars.append(scalar)
      case " "..."~": result.unicodeScalars.append(scalar)
      default: result.append("?")
      }
    }
    result.append("\"")
    return result
  }

  /// A duration in whole seconds, rounded up; never negative.
  public static func wholeSeconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    if seconds < 0 { return 0 }
    return attoseconds > 0 ? (seconds == .max ? .max : seconds + 1) : seconds
  }
}
