/// What a server said about this client's quota, read from one response: `RateLimit` and `RateLimit-Policy`
/// (draft-ietf-httpapi-ratelimit-headers -08 to -11), `Retry-After` (delay-seconds or HTTP-date), and the common
/// `X-RateLimit-Limit`, `-Remaining` and `-Reset`. Malformed fields are ignored, as the draft requires.
///
/// An API client that follows the server in one line, with a `RateLimiter` of its own:
///
/// ```swift
/// let api = RateLimiter(limit: 5_000, per: .seconds(3_600))
/// try await api.acquire()
/// let (status, fields) = try await send(request)
/// api.block(for: ServerQuota(status: status, fields: fields).wait)
/// ```
///
/// How the fields are read (SPEC 4.3):
///
/// | field | read as | gives |
/// |---|---|---|
/// | `RateLimit-Policy` | Structured Field list: `"name";q=…;w=…;qu=…;pk=:…:` | `quota`, `window`, `unit` |
/// | `RateLimit` | Structured Field list: `"name";r=…;t=…;pk=:…:` | `remaining`, `effectiveWindow` |
/// | `Retry-After` | seconds, or an HTTP-date relative to `Date` (else the wall clock) | `retryAfter` |
/// | `X-RateLimit-Limit`, `-Remaining`, `-Reset` | one policy named `""`, only when no policy is named above | `quota`, `remaining`, `effectiveWindow` |
///
/// Names are case-insensitive; several lines of one name are joined into one list first, so one malformed line
/// drops every line of that name. A list member whose item is not a String, or whose `q`, `r` or `t` is not a
/// non-negative Integer, or whose `w` is not a positive Integer, or whose `qu` is not a String, is ignored; members of one name and partition
/// key are one ``Policy``, later parameters winning. `X-RateLimit-Reset` is seconds to wait (a fraction rounded
/// up) below 1,000,000,000, else a Unix time. No value traps, and reading takes time linear in the fields' size
/// (SPEC 4.3.1): a number or date out of range is malformed, and ignored.
public struct ServerQuota: Sendable, Equatable {
  /// One quota policy of the server, as far as its fields told.
  public struct Policy: Sendable, Equatable {
    /// The policy's name (`""` for the `X-RateLimit-*` fields).
    public var name: String
    /// `q`, or `X-RateLimit-Limit`: the quota allocated per `window`.
    public var quota: Int?
    /// `w`: the time window of `quota`.
    public var window: Duration?
    /// `r`, or `X-RateLimit-Remaining`: what is left for this client.
    public var remaining: Int?
    /// `t`, or `X-RateLimit-Reset`: the time until more quota is made available.
    public var effectiveWindow: Duration?
    /// `pk`: the partition key the server keyed this client by, when it said.
    public var partitionKey: [UInt8]?
    /// `qu`: what `quota` counts: `"requests"` (the draft's default, when the server says nothing),
    /// `"content-bytes"`, `"concurrent-requests"` (a limit on requests in flight, with no window: a client follows
    /// it with a `ConcurrencyLimiter` of `quota`), or a unit of the server's own.
    public var unit: String

    /// The unit of a policy that limits requests in flight (SPEC 4.4): ``ServerQuota/wait`` ignores its `r`.
    static let concurrentRequests = "concurrent-requests"

    /// A policy as read from the fields.
    public init(
      name: String, quota: Int? = nil, window: Duration? = nil, remaining: Int? = nil,
      effectiveWindow: Duration? = nil, partitionKey: [UInt8]? = nil, unit: String = "requests"
    ) {
      self.unit = unit
      self.name = name
      self.quota = quota
      self.window = window
      self.remaining = remaining
      self.effectiveWindow = effectiveWindow
      self.partitionKey = partitionKey
    }
  }

  /// The response's status code.
  public let status: Int
  /// The policies, in order of first appearance, `RateLimit-Policy` read before `RateLimit`.
  public private(set) var policies: [Policy] = []
  /// `Retry-After`, on any status (a date in the past: `.zero`).
  public private(set) var retryAfter: Duration?

  /// How long to hold the next request: `retryAfter` when the server sent one with a 429 or a 503, else the
  /// longest `effectiveWindow` among policies with nothing remaining, else `.zero`. `block(for: .zero)` changes
  /// nothing, so a client may pass it after every response. A policy whose ``Policy/unit`` is
  /// `"concurrent-requests"` is left out (SPEC 4.4: it has no window; a 429 with its `Retry-After: 1` still
  /// waits 1 s).
  public var wait: Duration {
    if status == 429 || status == 503, let retryAfter { return retryAfter }
    return policies.filter { $0.remaining == 0 && $0.unit != Policy.concurrentRequests }.compactMap(\.effectiveWindow)
      .max() ?? .zero
  }

  /// Reads one response's status and header fields (names in any case, lines of one name in order).
  ///
  /// Never traps, whatever the values (SPEC 4.3.1): a number or a date whose seconds, or whose distance from the
  /// `Date` field, leave `Int64` is malformed and ignored (`Retry-After`'s delay-seconds saturate, as before), and
  /// a signed year, day or time is no HTTP-date.
  ///
  /// - Complexity: O(n) in the fields' total size: lines of one name are joined once, and a member finds the
  ///   policy of its name and partition key by hashing (every earlier policy was compared: 542 KB of policy names
  ///   took 76 s).
  public init(status: Int, fields: [(name: String, value: String)]) {
    self.status = status
    var lines: [String: [String]] = [:]
    for field in fields { lines[field.name.lowercased(), default: []].append(field.value) }
    let joined = lines.mapValues { $0.joined(separator: ", ") }
    let reference = joined["date"].flatMap { HTTPDate.seconds($0, now: HTTPDate.wallClock()) } ?? HTTPDate.wallClock()
    var indices: [PolicyKey: Int] = [:]
    read(joined["ratelimit-policy"], parameters: ["q": .quota, "w": .window, "qu": .unit], indices: &indices)
    read(joined["ratelimit"], parameters: ["r": .remaining, "t": .effectiveWindow], indices: &indices)
    if policies.isEmpty { readCommonFields(joined, reference: reference) }
    retryAfter = joined["retry-after"].flatMap { Self.retryAfter($0, reference: reference) }
  }

  /// What a parameter of a list member sets.
  private enum Parameter {
    case quota, window, remaining, effectiveWindow, unit
  }

  /// What makes members one policy: their name and partition key.
  private struct PolicyKey: Hashable {
    var name: String
    var partitionKey: [UInt8]?
  }

  /// Reads one of the draft's two list fields into `policies`; `indices` finds each policy by its key.
  private mutating func read(
    _ field: String?, parameters known: [String: Parameter], indices: inout [PolicyKey: Int]
  ) {
    guard let field, let list = StructuredFieldList(field) else { return }
    members: for member in list.members {
      guard case .string(let name)? = member.item else { continue }
      var policy = Policy(name: name)
      var unit: String?
      for (key, value) in member.parameters {
        if key == "pk" {
          guard case .bytes(let bytes) = value else { continue members }
          policy.partitionKey = bytes
          continue
        }
        guard let parameter = known[key] else { continue }
        if parameter == .unit {
          guard case .string(let text) = value else { continue members }
          unit = text
          continue
        }
        guard case .integer(let number) = value, number >= (parameter == .window ? 1 : 0) else { continue members }
        switch parameter {
        case .quota: policy.quota = Int(number)
        case .window: policy.window = .seconds(number)
        case .remaining: policy.remaining = Int(number)
        case .effectiveWindow: policy.effectiveWindow = .seconds(number)
        case .unit: break
        }
      }
      if let unit { policy.unit = unit }
      merge(policy, unit: unit, indices: &indices)
    }
  }

  /// Adds `policy`, or joins it to the one of the same name and partition key, its parameters winning (`unit`
  /// when the member said it): O(1) expected, by `indices`.
  private mutating func merge(_ policy: Policy, unit: String?, indices: inout [PolicyKey: Int]) {
    let key = PolicyKey(name: policy.name, partitionKey: policy.partitionKey)
    guard let index = indices[key] else {
      indices[key] = policies.count
      policies.append(policy)
      return
    }
    policies[index].quota = policy.quota ?? policies[index].quota
    policies[index].window = policy.window ?? policies[index].window
    policies[index].remaining = policy.remaining ?? policies[index].remaining
    policies[index].effectiveWindow = policy.effectiveWindow ?? policies[index].effectiveWindow
    policies[index].unit = unit ?? policies[index].unit
  }

  /// `X-RateLimit-Limit`, `-Remaining` and `-Reset`, as one policy named `""`.
  private mutating func readCommonFields(_ fields: [String: String], reference: Int64) {
    let quota = fields["x-ratelimit-limit"].flatMap(Self.count)
    let remaining = fields["x-ratelimit-remaining"].flatMap(Self.count)
    let reset = fields["x-ratelimit-reset"].flatMap { Self.reset($0, reference: reference) }
    guard quota != nil || remaining != nil || reset != nil else { return }
    policies.append(Policy(name: "", quota: quota, remaining: remaining, effectiveWindow: reset))
  }

  /// A non-negative integer, all digits (saturating); `nil` otherwise.
  private static func count(_ text: String) -> Int? {
    let digits = text.trimmingSpaces
    guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return Int(digits) ?? .max
  }

  /// `X-RateLimit-Reset`: seconds (a fraction rounded up) below 1,000,000,000, else a Unix time. Malformed, so
  /// `nil`: a value past `Int64.max` seconds, or a Unix time whose distance from `reference` (a `Date` of year 1,
  /// say) leaves `Int64` (SPEC 4.3.1: it trapped).
  private static func reset(_ text: String, reference: Int64) -> Duration? {
    let value = text.trimmingSpaces
    let parts = value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard let whole = parts.first, !whole.isEmpty, whole.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
      var seconds = Int64(whole)
    else { return nil }
    // The value as sent decides which it is, before its fraction is rounded up.
    let isDelay = seconds < 1_000_000_000
    if parts.count == 2 {
      let fraction = parts[1]
      guard !fraction.isEmpty, fraction.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
      if fraction.utf8.contains(where: { $0 != 0x30 }) {
        guard seconds < .max else { return nil }
        seconds += 1
      }
    }
    if isDelay { return .seconds(seconds) }
    let (distance, overflow) = seconds.subtractingReportingOverflow(reference)
    return overflow ? nil : .seconds(Swift.max(0, distance))
  }

  /// `Retry-After`: delay-seconds (saturating at `Int64.max`), or an HTTP-date relative to `reference` (in the
  /// past: `.zero`; a distance that leaves `Int64`, which no two HTTP-dates have: `nil`).
  private static func retryAfter(_ text: String, reference: Int64) -> Duration? {
    let value = text.trimmingSpaces
    if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
      return .seconds(Int64(value) ?? .max)
    }
    guard let date = HTTPDate.seconds(value, now: reference) else { return nil }
    let (distance, overflow) = date.subtractingReportingOverflow(reference)
    return overflow ? nil : .seconds(Swift.max(0, distance))
  }
}

extension String {
  /// Without leading and trailing spaces and tabs (a field value's optional whitespace).
  fileprivate var trimmingSpaces: String {
    let bytes = Array(utf8)
    var start = 0
    var end = bytes.count
    while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
    while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
    return String(decoding: bytes[start..<end], as: UTF8.self)
  }
}
