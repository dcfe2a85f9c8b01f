public import RateLimit

/// The header fields of draft-ietf-httpapi-ratelimit-headers-11 for a list of policies and their decisions, one
/// list member per policy in the order given:
///
/// ```
/// RateLimit-Policy: "search";q=10;w=10, "daily";q=100;w=86400
/// RateLimit: "search";r=7;t=4, "daily";r=93;t=86396
/// ```
///
/// `w` is the policy's `quotaWindow` (T, or B × T / N for a token bucket) in whole seconds rounded up (at least 1),
/// `q` the `limit` allocated in `w` (rounded down), `r` the `remaining` permits and `t` the `effectiveWindow` (with
/// `r` taken now, until one more permit), in whole seconds rounded up (SPEC 4.2, correcting 4.1's `resetAfter`
/// and burst over T). Names are Structured Field strings.
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
      appendPolicy(
        structuredString(policy.name), limit: policy.decision.limit, quotaWindow: policy.decision.quotaWindow,
        separated: index > 0, to: &value)
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
  /// ``RateLimitGate`` does once, not on every request): the sustained rate (SPEC 4.2), `w` = `quotaWindow` in
  /// whole seconds rounded up (at least 1) and `q` = `limit` × `w` / `quotaWindow`, rounded down.
  static func appendPolicy(
    _ quoted: String, limit: Int, quotaWindow: Duration, separated: Bool, to value: inout String
  ) {
    let (quota, window) = quotaAndWindow(limit: limit, quotaWindow: quotaWindow)
    if separated { value += ", " }
    value += quoted
    value += ";q="
    value += String(quota)
    value += ";w="
    value += String(window)
  }

  /// `q` and `w` of a policy that allocates `limit` permits every `quotaWindow`: `w` whole seconds (rounded up,
  /// at least 1), and the permits allocated in `w`, rounded down (conservative: 1 per 1.5 s says `q=1;w=2`).
  public static func quotaAndWindow(limit: Int, quotaWindow: Duration) -> (quota: Int, window: Int64) {
    let seconds = max(1, wholeSeconds(quotaWindow))
    let (whole, attoseconds) = quotaWindow.components
    // Beyond 292 years (or nothing to allocate) the quota is the limit itself.
    guard limit > 0, whole >= 0, whole < Int64.max / 1_000_000_000 - 1 else { return (max(0, limit), seconds) }
    let nanoseconds = whole * 1_000_000_000 + (attoseconds + 999_999_999) / 1_000_000_000
    guard nanoseconds > 0 else { return (limit, seconds) }
    // w·10⁹ − quotaWindow is below 10⁹ (or w is 1 for a window under a second): q = limit + limit·extra /
    // quotaWindow, exact in 128 bits, saturating.
    let extra = UInt64(max(0, seconds * 1_000_000_000 - nanoseconds))
    let product = UInt64(limit).multipliedFullWidth(by: extra)
    guard product.high < UInt64(nanoseconds) else { return (Int.max, seconds) }
    let more = UInt64(nanoseconds).dividingFullWidth(product).quotient
    let (quota, overflow) = limit.addingReportingOverflow(Int(clamping: more))
    return (overflow ? Int.max : quota, seconds)
  }

  /// Appends a concurrency policy's `RateLimit-Policy` member (SPEC 4.4): `q` = the limit of requests in flight,
  /// `qu="concurrent-requests"`, no `w`.
  static func appendConcurrencyPolicy(_ quoted: String, limit: Int, separated: Bool, to value: inout String) {
    if separated { value += ", " }
    value += quoted
    value += ";q="
    value += String(max(0, limit))
    value += ";qu=\"concurrent-requests\""
  }

  /// Appends a concurrency policy's `RateLimit` member: `r` = what the key may still hold now, no `t`.
  static func appendConcurrencyState(_ quoted: String, remaining: Int, separated: Bool, to value: inout String) {
    if separated { value += ", " }
    value += quoted
    value += ";r="
    value += String(max(0, remaining))
  }

  /// Appends one policy's `RateLimit` member, its name already a Structured Field string.
  static func appendState(_ quoted: String, _ decision: RateLimitDecision, separated: Bool, to value: inout String) {
    if separated { value += ", " }
    value += quoted
    value += ";r="
    value += String(max(0, decision.remaining))
    value += ";t="
    value += String(wholeSeconds(decision.effectiveWindow))
  }

  /// One policy's `RateLimit` value, as ``appendState(_:_:separated:to:)`` writes it, in one pass and one
  /// allocation: the one string an in-process grant makes.
  static func stateValue(_ quoted: String, _ decision: RateLimitDecision) -> String {
    let remaining = UInt64(max(0, decision.remaining))
    let reset = UInt64(wholeSeconds(decision.effectiveWindow))
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
