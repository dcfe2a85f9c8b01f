/// Which granted requests keep their permits, decided by the response's status code: a login limit that counts
/// only failures does not lock out a user who signs in.
///
/// | counting | keeps the permits of a response with status |
/// |---|---|
/// | ``every`` (the default, 4.1) | any |
/// | ``failures`` | 400 or more |
/// | ``successes`` | below 400 |
/// | ``when(_:)`` | those for which the closure returns `true` |
///
/// The others' permits are given back exactly after the route answers: the key is as if the request had never
/// been decided (no other request's booking moves), and the response's `RateLimit` field reports `r` after the
/// give-back (`r` + the permits, at most `q`; SPEC 4.3.1). A route that throws counts with the status its framework
/// answers (Hummingbird: an `HTTPResponseError`'s; Vapor: an `AbortError`'s; else 500).
///
/// A struct with static members, as ``RateLimitHeaders`` is, so that a later choice breaks no one's code.
public struct RateLimitCounting: Sendable {
  /// Whether a response with this status keeps the request's permits; `nil`: every response does.
  let keeps: (@Sendable (_ status: Int) -> Bool)?

  /// Every granted request keeps its permits (4.1).
  public static let every = RateLimitCounting(keeps: nil)
  /// Only failed requests (status 400 or more) keep their permits: a successful login costs nothing.
  public static let failures = RateLimitCounting { $0 >= 400 }
  /// Only successful requests (status below 400) keep their permits.
  public static let successes = RateLimitCounting { $0 < 400 }

  /// The requests whose response status `counts` returns `true` for keep their permits.
  ///
  /// - Parameter counts: Called once per granted request, after the route answered, with the status code.
  public static func when(_ counts: @escaping @Sendable (_ status: Int) -> Bool) -> RateLimitCounting {
    RateLimitCounting(keeps: counts)
  }

  /// Whether a response with `status` keeps the request's permits.
  package func keepsPermits(of status: Int) -> Bool { keeps?(status) ?? true }

  /// Whether every response keeps them (``every``): nothing to do after the route.
  package var keepsEvery: Bool { keeps == nil }
}

/// Whether a policy refuses requests (``enforce``) or only says what it would refuse (``shadow``): a new limit
/// tried on live traffic before it refuses anyone.
///
/// A struct with static members, as ``RateLimitHeaders`` is, so that a later mode breaks no one's `switch`.
public struct RateLimitPolicyMode: Sendable, Hashable {
  private enum Kind: Sendable, Hashable {
    case enforce
    case shadow
  }

  private let kind: Kind

  /// The policy refuses what it does not grant (4.1).
  public static let enforce = RateLimitPolicyMode(kind: .enforce)
  /// The policy is decided and counted after the enforced ones, its refusals logged at `debug` and counted as
  /// `decision="shadow_refused"`, but it never refuses a request (which then takes nothing from it), and it is
  /// not in the header fields. When an enforced policy refuses (locally or in its store), the shadow policy is
  /// not decided at all: it takes nothing, counts nothing, sends nothing (SPEC 4.3.1).
  public static let shadow = RateLimitPolicyMode(kind: .shadow)

  /// Whether the policy only says what it would refuse.
  package var isShadow: Bool { kind == .shadow }
}
