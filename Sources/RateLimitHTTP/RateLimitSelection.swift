/// What one request takes, decided per request by a middleware's `select` closure: its key and policies
/// (plans, costs), or nothing at all (exemptions).
///
/// ```swift
/// RateLimitMiddleware { request, context in
///   guard let user = context.user else {
///     let address = context.remoteAddress?.ipAddress ?? ""
///     return office.contains(address)
///       ? .exempt
///       : .limit(clientKey(address: address) ?? address, anonymous)
///   }
///   if user.isStaff { return .exempt }
///   let plan = user.isPro ? pro : free
///   return .limit(user.id, isExport ? plan.permits(5) : plan)
/// }
/// ```
///
/// The policies of one request are decided all or nothing, as a fixed list is (``RateLimitGate``). An empty list
/// is ``exempt``: no decision, no fields.
public struct RateLimitSelection: Sendable {
  /// The request's key; `nil` when exempt.
  public let key: String?
  /// The policies the request takes from, in the order their header fields list them.
  public let policies: [RateLimitPolicy]

  /// `key` takes from every one of `policies`.
  public static func limit(_ key: String, _ policies: RateLimitPolicy...) -> RateLimitSelection {
    limit(key, policies)
  }

  /// `key` takes from every one of `policies`; none: ``exempt``.
  public static func limit(_ key: String, _ policies: [RateLimitPolicy]) -> RateLimitSelection {
    policies.isEmpty ? exempt : RateLimitSelection(key: key, policies: policies)
  }

  /// Not limited: no decision, no fields.
  public static var exempt: RateLimitSelection { RateLimitSelection(key: nil, policies: []) }
}
