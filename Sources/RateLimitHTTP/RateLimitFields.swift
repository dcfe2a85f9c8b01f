public import RateLimit

/// The header fields of draft-ietf-httpapi-ratelimit-headers for a list of policies and their decisions, one
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
  /// The `RateLimit-Policy` field's value.
  public static func policy(_ policies: [(name: String, decision: RateLimitDecision)]) -> String {
    list(policies) { "\(structuredString($0.name));q=\($0.decision.limit);w=\(wholeSeconds($0.decision.window))" }
  }

  /// The `RateLimit` field's value.
  public static func state(_ policies: [(name: String, decision: RateLimitDecision)]) -> String {
    list(policies) {
      "\(structuredString($0.name));r=\(max(0, $0.decision.remaining));t=\(wholeSeconds($0.decision.resetAfter))"
    }
  }

  /// The members, comma-separated (one policy, the common case: no array).
  private static func list(
    _ policies: [(name: String, decision: RateLimitDecision)],
    _ member: ((name: String, decision: RateLimitDecision)) -> String
  ) -> String {
    if policies.count == 1 { return member(policies[0]) }
    return policies.map(member).joined(separator: ", ")
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
