import RateLimit

/// What a middleware does with a request, without a framework: decides every policy for the request's key, all
/// or nothing, and says what the response carries. RateLimitHummingbird and RateLimitVapor are thin layers over
/// it; use it directly for another framework.
///
/// ```swift
/// let gate = RateLimitGate([RateLimitPolicy("api", limiter)])
/// switch try await gate.decide(key: key) {
/// case .granted(let fields): // run the route, add `fields` to its response
/// case .refused(let refusal): // 429, refusal.fields (Retry-After included)
/// case .badRequest: // 400: the key is longer than 1,024 UTF-8 bytes
/// }
/// // and when `decide` throws: 503, RateLimitGate.unavailableFields
/// ```
///
/// **All or nothing.** A request is granted only if every policy grants its permits. When one refuses, nothing
/// stays taken from the others: when every policy's limiter can decide jointly with the others
/// (`PostgresRateLimiter`s on one `PostgresClient`), one step decides them all atomically; otherwise the in-process
/// policies decide in order, then every other store at once (a request waits one `timeout`, however many), and a
/// refusal takes every grant back exactly: `KeyedRateLimiter`'s at once, `PostgresRateLimiter`'s by revoking its
/// booking (one more round trip). A limiter of your own that conforms only to `SharedKeyedLimiter` keeps what it
/// granted. An error from a limiter takes back every other grant, then propagates: the middlewares answer it 503
/// (``RateLimitGate/answer(unavailable:key:refusal:)``).
///
/// **Fail closed is not a quota** (SPEC 4.3.1). A request refused only because policies under `.deny` could not
/// reach their store (a decision that is `isFallback`, refused, without `retryAfter`) is not a 429: ``decide(key:)`` takes back the other grants and
/// throws ``Unavailable``, answered as any store that threw (503, `Retry-After: 1`, no fields). Beside a policy
/// that refused by its rule, such a policy is left out of the 429 (its `Retry-After` and fields): it knows nothing
/// of the key.
public struct RateLimitGate: Sendable {
  /// The policies, in the order their header fields are listed.
  public let policies: [RateLimitPolicy]
  /// Which header fields responses carry.
  public let headers: RateLimitHeaders
  /// What a refusal's body says.
  public let refusal: RateLimitRefusalBody

  /// What ``decide(key:)`` throws for a request refused only because policies under `.deny` could not reach
  /// their store (SPEC 4.3.1, "Fail closed is not a quota"): the request is answered as for a store that threw
  /// (`.throwError`), 503 with `Retry-After: 1` and no fields for those policies. Every other grant of the
  /// request has been taken back.
  public struct Unavailable: Error, Sendable, CustomStringConvertible {
    /// The policies whose store could not decide, in policy order.
    public let policies: [String]
    /// The policies a `WhenUnavailable` fallback answered (these among them), for `ratelimit_fallback`.
    package let fallbacks: [String]

    /// Names the policies.
    public var description: String {
      "rate limit: the store of \(policies.joined(separator: ", ")) could not decide (whenUnavailable: .deny)"
    }
  }

  /// Whether `decision` is a `.deny` answer: refused by a `WhenUnavailable` policy that could not reach its
  /// store (`isFallback`, not granted, no `retryAfter`, as `PostgresRateLimiter` answers under `.deny`). A
  /// `.fallback` limiter's refusal says when to retry, and is a refusal like any other.
  static func isUnreachable(_ decision: RateLimitDecision) -> Bool {
    decision.isFallback && !decision.isGranted && decision.retryAfter == nil
  }

  /// Throws ``Unavailable`` when the enforced policies that refused all could not reach their store;
  /// the caller has taken every grant back.
  func requireReachable(_ decisions: [RateLimitDecision]) throws {
    var unreachable: [String] = []
    for (policy, decision) in zip(policies, decisions) where !decision.isGranted && !policy.mode.isShadow {
      guard Self.isUnreachable(decision) else { return }
      unreachable.append(policy.name)
    }
    if !unreachable.isEmpty { throw Unavailable(policies: unreachable, fallbacks: fallbacks(decisions)) }
  }

  /// What a middleware answers, beside **503 Service Unavailable**, when ``decide(key:)`` throws (a store that
  /// cannot decide, `.throwError`): `Retry-After: 1`, since the store asks the database again within about a
  /// second; no RateLimit fields. The gate has taken back the request's other grants.
  public static let unavailableFields: [(name: String, value: String)] = [(RateLimitFields.retryAfterName, "1")]

  /// The longest key, in UTF-8 bytes, that any store takes (`PostgresRateLimiter`'s bound, applied to all).
  public static let maximumKeyLength = 1_024

  /// A gate over `policies`, in the order their header fields list them; refusals answered with `refusal`.
  public init(_ policies: [RateLimitPolicy], headers: RateLimitHeaders = .ietf, refusal: RateLimitRefusalBody = .text) {
    self.policies = policies
    self.headers = headers
    self.refusal = refusal
    self.quotedNames = policies.map { RateLimitFields.structuredString($0.name) }
    if policies.count == 1, policies[0].isPlain, let keyed = policies[0].limiter as? KeyedRateLimiter<String>,
      keyed.window > .zero
    {
      var field = ""
      let (limit, quotaWindow) = (keyed.burst ?? keyed.limit, keyed.quotaWindow)
      RateLimitFields.appendPolicy(quotedNames[0], limit: limit, quotaWindow: quotaWindow, separated: false, to: &field)
      inProcess = InProcess(
        limiter: keyed, permits: policies[0].permits, policyField: field, limit: limit, quotaWindow: quotaWindow)
    } else {
      inProcess = nil
    }
  }

  /// The policies' names as Structured Field strings, made once.
  private let quotedNames: [String]
  /// The one policy's in-process limiter, and its `RateLimit-Policy` value for the quota it had when the gate was
  /// made (a decision with another quota, after an `update`, takes the general path).
  private let inProcess: InProcess?

  private struct InProcess: Sendable {
    let limiter: KeyedRateLimiter<String>
    let permits: Int
    let policyField: String
    let limit: Int
    let quotaWindow: Duration
  }

  /// What to answer.
  public enum Outcome: Sendable {
    /// Run the route; add `fields` to its response.
    case granted(fields: [(name: String, value: String)])
    /// Answer 429 Too Many Requests with `refusal.fields`.
    case refused(Refusal)
    /// Answer 400 Bad Request: the key is longer than ``RateLimitGate/maximumKeyLength``.
    case badRequest
  }

  /// A refused request: which policies refused and what the 429 carries.
  public struct Refusal: Sendable {
    /// The names of the policies that refused, in order.
    public var refusedBy: [String]
    /// The longest wait of the refusing policies; `nil` if one of them can never grant (more than its
    /// capacity).
    public var retryAfter: Duration?
    /// `Retry-After` (whole seconds, rounded up, at least 1; absent when `retryAfter` is `nil`), then the
    /// RateLimit fields.
    public var fields: [(name: String, value: String)]
  }

  /// Decides the request of `key`: every policy, all or nothing.
  ///
  /// A policy with `counting` other than `.every` keeps its grant here: the middlewares give it back by the
  /// response's status (`decideRequest(key:)`).
  public func decide(key: String) async throws -> Outcome {
    try await decideRequest(key: key).outcome
  }

  /// ``decide(key:)``, with what a middleware does beside the outcome: the policies a `WhenUnavailable` fallback
  /// answered (`RateLimitDecision.isFallback`), the shadow policies that refused, and the grants the response's
  /// status may give back (``Settlement``).
  package func decideRequest(key: String) async throws -> Decided {
    if key.utf8.count > Self.maximumKeyLength { return Decided(outcome: .badRequest) }
    guard policies.allSatisfy(\.isPlain) else { return try await decideOperated(key: key) }
    let decisions = try await decideAll(key: key)
    try requireReachable(decisions)
    return Decided(outcome: outcome(decisions), fallbacks: fallbacks(decisions))
  }

  /// The names of the policies whose decision a `WhenUnavailable` fallback answered.
  func fallbacks(_ decisions: [RateLimitDecision]) -> [String] {
    zip(policies, decisions).filter { $0.1.isFallback }.map(\.0.name)
  }

  /// ``decide(key:)`` without suspending, for the middlewares: the answer when the one policy is an in-process
  /// `KeyedRateLimiter<String>`, `nil` otherwise. A call to an `async` function may hop to another executor
  /// and back, which cost a hello-world server a fifth of its requests per second.
  ///
  /// A grant, the usual answer, comes as the `RateLimit` field's value alone (`nil` with
  /// ``RateLimitHeaders/none``): its `RateLimit-Policy` is ``inProcessPolicyField``, so a middleware makes that
  /// field once. A grant with another quota (the limiter was updated) comes as `.other`, with both fields.
  package func decideInProcess(key: String) -> InProcessOutcome? {
    guard let inProcess else { return nil }
    if key.utf8.count > Self.maximumKeyLength { return .other(.badRequest) }
    let decision = inProcess.limiter.decide(inProcess.permits, for: key)
    guard decision.isGranted, decision.limit == inProcess.limit, decision.quotaWindow == inProcess.quotaWindow
    else { return .other(outcome([decision])) }
    guard headers.addsRateLimitFields else { return .granted(rateLimit: nil) }
    return .granted(rateLimit: RateLimitFields.stateValue(quotedNames[0], decision))
  }

  /// The `RateLimit-Policy` value of every grant ``decideInProcess(key:)`` answers; `nil` when it answers none
  /// or the gate adds no fields.
  package var inProcessPolicyField: String? {
    guard headers.addsRateLimitFields else { return nil }
    return inProcess?.policyField
  }

  /// What ``decideInProcess(key:)`` answers.
  package enum InProcessOutcome: Sendable {
    /// Run the route; add ``inProcessPolicyField`` and this `RateLimit` value (if any) to its response.
    case granted(rateLimit: String?)
    /// Anything else, as ``decide(key:)`` answers it.
    case other(Outcome)
  }

  /// The outcome of the policies' decisions, made all or nothing. A policy that could not reach its store
  /// beside one that refused by its rule is left out of the refusal: it has no wait and no
  /// state to tell.
  func outcome(_ decisions: [RateLimitDecision]) -> Outcome {
    let fields = headerFields(decisions)
    guard zip(policies, decisions).contains(where: { !$0.mode.isShadow && !$1.isGranted }) else {
      return .granted(fields: fields)
    }
    var refusedBy: [String] = []
    var retryAfter: Duration? = .zero
    for (policy, decision) in zip(policies, decisions)
    where !decision.isGranted && !policy.mode.isShadow && !Self.isUnreachable(decision) {
      refusedBy.append(policy.name)
      if let wait = decision.retryAfter, let longest = retryAfter {
        retryAfter = max(longest, wait)
      } else {
        retryAfter = nil
      }
    }
    var refusalFields: [(name: String, value: String)] = []
    if let retryAfter {
      refusalFields.append(
        (RateLimitFields.retryAfterName, String(max(1, RateLimitFields.wholeSeconds(retryAfter)))))
    }
    return .refused(Refusal(refusedBy: refusedBy, retryAfter: retryAfter, fields: refusalFields + fields))
  }

  /// The RateLimit fields for these decisions (none with ``RateLimitHeaders/none``); a concurrency policy's
  /// member has `q` and `qu="concurrent-requests"`, then `r` alone. A rate policy without limiting
  /// (a zero window) is not listed: the draft forbids `w=0`; nor is a shadow policy, nor one that could not reach
  /// its store (`isFallback`, refused without a wait: it knows nothing of the key), nor one a request refused
  /// without deciding it (SPEC 4.3.1); with none left, no fields.
  func headerFields(_ decisions: [RateLimitDecision]) -> [(name: String, value: String)] {
    guard headers.addsRateLimitFields, !policies.isEmpty else { return [] }
    var policy = ""
    var state = ""
    // Both values in one pass, each built in place (a request pays for two strings, not a list of members).
    policy.reserveCapacity(32 * decisions.count)
    state.reserveCapacity(32 * decisions.count)
    var listed = 0
    for (index, decision) in decisions.enumerated()
    where !decision.isUndecided && !policies[index].mode.isShadow && !Self.isUnreachable(decision) {
      if policies[index].concurrency != nil {
        // In flight, not per window: `qu="concurrent-requests"`, no `w`, no `t` (SPEC 4.4).
        RateLimitFields.appendConcurrencyPolicy(
          quotedNames[index], limit: decision.limit, separated: listed > 0, to: &policy)
        RateLimitFields.appendConcurrencyState(
          quotedNames[index], remaining: decision.remaining, separated: listed > 0, to: &state)
      } else {
        guard decision.window > .zero else { continue }
        RateLimitFields.appendPolicy(
          quotedNames[index], limit: decision.limit, quotaWindow: decision.quotaWindow, separated: listed > 0,
          to: &policy)
        RateLimitFields.appendState(quotedNames[index], decision, separated: listed > 0, to: &state)
      }
      listed += 1
    }
    if listed == 0 { return [] }
    return [(RateLimitFields.policyName, policy), (RateLimitFields.stateName, state)]
  }

  /// One decision per policy, all or nothing.
  func decideAll(key: String) async throws -> [RateLimitDecision] {
    if policies.count == 1 {
      // An in-process limiter decides synchronously: called directly, not through the protocol's `async`
      // requirement, whose witness may hop to another executor and back on every request.
      if let inProcess { return [inProcess.limiter.decide(inProcess.permits, for: key)] }
      return [try await policies[0].limiter.decide(policies[0].permits, for: key)]
    }
    if let joint = policies.first?.limiter as? any JointlyDecidingLimiter, canDecideJointly(with: joint) {
      return try await joint.decideJointly(policies.map { ($0.limiter, $0.permits) }, for: key)
    }
    return try await decideInOrder(key: key)
  }

  func canDecideJointly(with joint: any JointlyDecidingLimiter) -> Bool {
    policies.allSatisfy { ($0.limiter as? any JointlyDecidingLimiter)?.jointGroup == joint.jointGroup }
  }

  /// Policies that cannot decide in one step: the in-process ones first, synchronously, in policy order; then
  /// the others all at once, so that a request waits for its slowest store, not for their sum (at most one
  /// `timeout` however many `PostgresRateLimiter`s it has). On a refusal (or an error), every grant is taken
  /// back exactly: in process at once, a `PostgresRateLimiter`'s by revoking its booking (one more round trip,
  /// before the response). Only a limiter of the app's own (`SharedKeyedLimiter` alone) keeps what it granted.
  private func decideInOrder(key: String) async throws -> [RateLimitDecision] {
    let (made, decisions, _) = try await decideEach(key: key)
    return await UndoableDecision.allOrNothing(made, decisions)
  }

  /// Every policy's decision, each undoable where its limiter can take a grant back: the enforced policies
  /// first, then, only when every one of them granted, the shadow policies (SPEC 4.3.1, "A shadow costs nothing
  /// when enforced policies refuse": refused, a request decides, takes, counts and sends nothing for its shadow
  /// policies). In each group the in-process policies decide first, synchronously, in policy order; then the
  /// others all at once. On an error every grant is taken back, then the error propagates.
  ///
  /// A shadow policy that was not decided is reported as ``notDecided``: a grant of nothing, with nothing to
  /// undo, no fallback, never listed in the fields, never counted as a shadow refusal.
  ///
  /// A concurrency policy's grant also comes as its lease, in `leases` (its undo releases it).
  func decideEach(key: String) async throws -> (
    made: [UndoableDecision?], decisions: [RateLimitDecision], leases: [Lease?]
  ) {
    var made = [UndoableDecision?](repeating: nil, count: policies.count)
    var decisions = [RateLimitDecision?](repeating: nil, count: policies.count)
    var leases = [Lease?](repeating: nil, count: policies.count)
    let enforced = policies.indices.filter { !policies[$0].mode.isShadow }
    try await decide(enforced, key: key, &made, &decisions, &leases)
    if enforced.count < policies.count, enforced.allSatisfy({ decisions[$0]?.isGranted == true }) {
      try await decide(policies.indices.filter { policies[$0].mode.isShadow }, key: key, &made, &decisions, &leases)
    }
    return (made, decisions.map { $0 ?? Self.notDecided }, leases)
  }

  /// What a shadow policy that was not decided reports (its enforced policies refused the request).
  static let notDecided = {
    var decision = RateLimitDecision(
      isGranted: true, limit: 0, window: .zero, remaining: 0, resetAfter: .zero, retryAfter: nil)
    decision.isUndecided = true
    return decision
  }()

  /// Decides the policies at `indices` into `made` and `decisions`: the in-process ones first, synchronously, in
  /// policy order; then the others all at once. On an error every grant in `made` (this group's and earlier
  /// ones') is taken back, then the error propagates. A concurrency policy's lease goes in `leases`.
  private func decide(
    _ indices: [Int], key: String, _ made: inout [UndoableDecision?], _ decisions: inout [RateLimitDecision?],
    _ leases: inout [Lease?]
  ) async throws {
    var others: [Int] = []
    for index in indices {
      let policy = policies[index]
      if let keyed = policy.limiter as? KeyedRateLimiter<String> {
        // Synchronous, as above; an enforced policy's penalty in the same step.
        let decision =
          if let penalty = policy.penalty, !policy.mode.isShadow {
            keyed.decidePenalising(policy.permits, for: key, penalty: penalty)
          } else {
            keyed.decideUndoably(policy.permits, for: key)
          }
        (made[index], decisions[index]) = (decision, decision.decision)
      } else {
        others.append(index)
      }
    }
    // A request an in-process policy refused takes no lease, not even for a moment (SPEC 4.4): its concurrency
    // policies stay undecided (left out of the fields). Other stores are decided all at once as ever.
    if indices.contains(where: { decisions[$0]?.isGranted == false && !policies[$0].mode.isShadow }) {
      others.removeAll { policies[$0].concurrency != nil }
    }
    if others.isEmpty { return }
    var failure: (any Error)?
    var answers: [(Int, UndoableDecision?, RateLimitDecision, Lease?)] = []
    await withTaskGroup(of: (Int, Result<(UndoableDecision?, RateLimitDecision, Lease?), any Error>).self) { group in
      for index in others {
        let policy = policies[index]
        group.addTask {
          do {
            if let concurrency = policy.limiter as? ConcurrencyPolicyLimiter {
              let (decision, lease) = try await concurrency.decideHolding(policy.permits, for: key)
              return (index, .success((decision, decision.decision, lease)))
            }
            if let penalty = policy.penalty, !policy.mode.isShadow,
              let penalising = policy.limiter as? any PenalisingLimiter
            {
              let decision = try await penalising.decidePenalising(policy.permits, for: key, penalty: penalty)
              return (index, .success((decision, decision.decision, nil)))
            }
            if let undoable = policy.limiter as? any UndoableKeyedLimiter {
              let decision = try await undoable.decideUndoably(policy.permits, for: key)
              return (index, .success((decision, decision.decision, nil)))
            }
            return (index, .success((nil, try await policy.limiter.decide(policy.permits, for: key), nil)))
          } catch {
            return (index, .failure(error))
          }
        }
      }
      // Every answer is collected, an error's included, so that no grant is left behind untaken.
      for await (index, result) in group {
        switch result {
        case .success(let (undoable, decision, lease)): answers.append((index, undoable, decision, lease))
        case .failure(let error): failure = failure ?? error
        }
      }
    }
    for (index, undoable, decision, lease) in answers {
      (made[index], decisions[index], leases[index]) = (undoable, decision, lease)
    }
    if let failure {
      await UndoableDecision.undoGrants(made)
      throw failure
    }
  }
}
