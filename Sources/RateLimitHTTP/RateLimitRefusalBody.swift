/// What a refusal's body says: ``text`` (4.1's, the default) or ``problemDetails``.
///
/// A struct over a private kind, as ``RateLimitHeaders`` is, so that a later choice breaks nobody's `switch`.
public struct RateLimitRefusalBody: Sendable, Hashable {
  private enum Kind: Sendable, Hashable {
    case text
    case problemDetails
  }

  private let kind: Kind

  /// `Too Many Requests`, as `text/plain; charset=utf-8`.
  public static let text = RateLimitRefusalBody(kind: .text)
  /// `application/problem+json` (RFC 9457) with the draft's `quota-exceeded` problem type:
  ///
  /// ```json
  /// {"type":"https://iana.org/assignments/http-problem-types#quota-exceeded",
  ///  "title":"Too Many Requests","status":429,"violated-policies":["search"]}
  /// ```
  ///
  /// `violated-policies` names the enforced policies known to refuse, in policy order: policies decided in order
  /// stop at the first refusal, so it may name only that one; a joint statement names every part that refused.
  ///
  /// A 503 (a store that could not decide: `.throwError`, or `.deny` with its store away) answers the draft's
  /// `temporary-reduced-capacity` problem type (SPEC 4.1.1), without `violated-policies` (no quota was
  /// exceeded):
  ///
  /// ```json
  /// {"type":"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity",
  ///  "title":"Service Unavailable","status":503}
  /// ```
  public static let problemDetails = RateLimitRefusalBody(kind: .problemDetails)

  /// The body and its content type for a refusal by `policies`.
  package func body(refusedBy policies: [String]) -> (contentType: String, body: String) {
    switch kind {
    case .text: return ("text/plain; charset=utf-8", "Too Many Requests\n")
    case .problemDetails:
      let names = policies.map(Self.jsonString).joined(separator: ",")
      return (
        "application/problem+json",
        #"{"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","title":"Too Many Requests","#
          + #""status":429,"violated-policies":["# + names + "]}"
      )
    }
  }

  /// The body and its content type for a 503: a store that could not decide.
  package func unavailableBody() -> (contentType: String, body: String) {
    switch kind {
    case .text: return ("text/plain; charset=utf-8", "Service Unavailable\n")
    case .problemDetails:
      return (
        "application/problem+json",
        #"{"type":"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity","#
          + #""title":"Service Unavailable","status":503}"#
      )
    }
  }

  /// `text` as a JSON string (RFC 8259): quotes, backslashes and control characters escaped.
  static func jsonString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
