#if Hummingbird
  public import Hummingbird
  import HTTPTypes
  import Logging
  import Metrics
  import NIOCore
  public import RateLimitHTTP
  import RateLimitMiddlewareSupport

  /// Rate limits the routes behind it: every request takes `permits` of each policy for its key, all or nothing.
  ///
  /// ```swift
  /// let searches = KeyedRateLimiter<String>(limit: 10, per: .seconds(10))
  /// router.group("search")
  ///   .add(middleware: RateLimitMiddleware(RateLimitPolicy("search", searches)) { request, _ in
  ///     request.headers[HTTPField.Name("X-Api-Key")!]
  ///   })
  /// ```
  ///
  /// | the request | the response |
  /// | --- | --- |
  /// | no key (`key` returns `nil`, or no peer address) | the route's, untouched: not limited |
  /// | a key longer than 1,024 UTF-8 bytes | 400 Bad Request, no decision |
  /// | a `select` that reads the body (``init(headers:refusal:maxBodySize:select:)``), a body over `maxBodySize` | 413 Content Too Large, no decision; the route never runs |
  /// | every policy grants | the route's, with `RateLimit-Policy` and `RateLimit` |
  /// | a policy refuses | 429 Too Many Requests, `Retry-After`, the RateLimit fields; the route never runs and no policy keeps anything |
  /// | a limiter throws while deciding, or a policy under `.deny` cannot reach its store | 503 Service Unavailable, `Retry-After: 1`; no policy keeps anything |
  ///
  /// A concurrency policy (`RateLimitPolicy(_:concurrency:permits:mode:)`) holds the request's lease until its
  /// response is done: the body's last byte written (a streamed body's too), a write failed (the client went
  /// away), or the route threw (released at once). The gauge `ratelimit_in_flight{policy}` counts the leases
  /// this process holds.
  ///
  /// A refusal is logged at `debug` on the request's logger (policy, key, retry); the swift-metrics counter
  /// `ratelimit_requests` counts requests by `policy` and `decision` (`granted`: every policy granted;
  /// `refused`: this policy refused; `unavailable`: a limiter threw). An error a limiter throws while deciding
  /// (`PostgresRateLimiterError.unavailable` under `.throwError`) takes back the request's other grants and is
  /// answered **503 Service Unavailable** with `Retry-After: 1` (the store's back-off asks the database again
  /// within about a second) and no RateLimit fields, logged at `warning` with the error; so is a request refused
  /// only because a policy under `.deny` could not reach its store (SPEC 4.3.1: not a 429 "quota exceeded").
  /// With `refusal: .problemDetails` the 503's body is the draft's `temporary-reduced-capacity` problem type.
  ///
  /// Every limited request's whole decision is recorded by the swift-metrics timer
  /// `ratelimit_decision_duration` (no dimensions), and a decision a `WhenUnavailable` policy answered
  /// (`RateLimitDecision.isFallback`) is counted by `ratelimit_fallback{policy}`.
  @available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
  public struct RateLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The request.
    public typealias Input = Request
    /// The response.
    public typealias Output = Response

    /// The fixed list's policies, made once (the `select` form makes its own per request).
    let limits: Limits
    let key: @Sendable (Request, Context) -> String?
    /// The `select` form's closure; `nil` for a fixed list of policies.
    let select: (@Sendable (Request, Context) -> RateLimitSelection)?
    /// The `select` form that reads the body (``init(headers:refusal:maxBodySize:select:)``); `nil` otherwise.
    let bodySelect: (@Sendable (Request, Context) async throws -> RateLimitSelection)?
    /// The most bytes of body `bodySelect`'s form collects: more is answered 413.
    let maxBodySize: Int
    /// `ratelimit_decision_duration` (each limited request's whole decision, every policy of it) and
    /// `ratelimit_fallback{policy}`.
    let timing = DecisionTiming()

    /// - Parameters:
    ///   - policies: The limits every request takes from, for its key, in the order the header fields list them.
    ///   - headers: Which header fields responses carry; `RateLimitHeaders.ietf` by default.
    ///   - refusal: What a refusal's body says: `.text` by default, or `.problemDetails` (RFC 9457).
    ///   - key: The request's key; `nil`: the request is not limited.
    public init(
      _ policies: RateLimitPolicy..., headers: RateLimitHeaders = .ietf, refusal: RateLimitRefusalBody = .text,
      key: @escaping @Sendable (Request, Context) -> String?
    ) {
      self.init(policies: policies, headers: headers, refusal: refusal, key: key)
    }

    init(
      policies: [RateLimitPolicy], headers: RateLimitHeaders, refusal: RateLimitRefusalBody,
      key: @escaping @Sendable (Request, Context) -> String?,
      select: (@Sendable (Request, Context) -> RateLimitSelection)? = nil,
      bodySelect: (@Sendable (Request, Context) async throws -> RateLimitSelection)? = nil, maxBodySize: Int = 0
    ) {
      self.limits = Self.limits(RateLimitGate(policies, headers: headers, refusal: refusal), madeOnce: true)
      self.key = key
      self.select = select
      self.bodySelect = bodySelect
      self.maxBodySize = maxBodySize
    }

    /// One list of policies as a request takes from it (the gate, its counters), with the `RateLimit-Policy`
    /// field of its in-process grants as Hummingbird's `HTTPField`.
    typealias Limits = PolicyList<HTTPField>

    static func limits(_ gate: RateLimitGate, madeOnce: Bool) -> Limits {
      Limits(
        gate, madeOnce: madeOnce,
        policyField: gate.inProcessPolicyField.map { HTTPField(name: .rateLimitPolicy, value: $0) })
    }

    /// Policies chosen per request (SPEC 4.2): `select` gives each request's key and policies (`.limit`), or
    /// `.exempt` (no decision, no fields). The fixed-list initializers are the special case of one list.
    ///
    /// ```swift
    /// router.add(middleware: RateLimitMiddleware { request, context in
    ///   guard let user = context.user else { return .limit(address, anonymous) }
    ///   return user.isStaff ? .exempt : .limit(user.id, user.isPro ? pro : free)
    /// })
    /// ```
    ///
    /// Keys are the closure's own: to key by the client's address as the address initializers do (behind proxies,
    /// by /64), `clientKey(peer:forwardedFor:trustedProxies:ipv6Prefix:)` gives the same key; it is `nil` for a
    /// request without a peer address, which those do not limit (return `.exempt`, or a key of your own).
    ///
    /// - Parameters:
    ///   - headers: Which header fields responses carry; `RateLimitHeaders.ietf` by default.
    ///   - refusal: What a refusal's body says: `.text` by default, or `.problemDetails` (RFC 9457).
    ///   - select: The request's key and policies, or `.exempt`; called once per request.
    public init(
      headers: RateLimitHeaders = .ietf, refusal: RateLimitRefusalBody = .text,
      select: @escaping @Sendable (Request, Context) -> RateLimitSelection
    ) {
      self.init(policies: [], headers: headers, refusal: refusal, key: { _, _ in nil }, select: select)
    }

    /// Policies chosen per request by a `select` that may suspend and read the request's body (SPEC 4.3.1): a
    /// login limited by the user name it posts. The middleware collects the body first, up to `maxBodySize`
    /// bytes, and hands it on to `select` and then to the route unchanged (both read the same bytes).
    ///
    /// ```swift
    /// struct Login: Decodable { let user: String }
    /// let logins = KeyedRateLimiter<String>(limit: 5, per: .seconds(900))
    /// router.group("login").add(middleware: RateLimitMiddleware {
    ///   request, context in
    ///   let login = try await request.decode(
    ///     as: Login.self, context: context)
    ///   return .limit(login.user, RateLimitPolicy("login", logins))
    /// })
    /// ```
    ///
    /// | the request | the response |
    /// | --- | --- |
    /// | a body over `maxBodySize` bytes | 413 Content Too Large; `select` is not called, nothing decided, the route never runs |
    /// | `select` throws | its error, as the route's would be (an `HTTPResponseError`'s status, else 500); nothing decided, the route never runs |
    /// | anything else | as ``init(headers:refusal:select:)`` answers it |
    ///
    /// A closure that does not suspend (no `await`) is the synchronous form, which reads no body. To key by the
    /// client's address as the address initializers do, `clientKey(peer:forwardedFor:trustedProxies:ipv6Prefix:)`
    /// gives the same key; it is `nil` for a request without a peer address, which those initializers do not
    /// limit (return `.exempt`, or a key of your own).
    ///
    /// - Parameters:
    ///   - headers: Which header fields responses carry; `RateLimitHeaders.ietf` by default.
    ///   - refusal: What a refusal's body says: `.text` by default, or `.problemDetails` (RFC 9457).
    ///   - maxBodySize: The most bytes of body collected, 64 KiB by default; not negative (a trap names the
    ///     value).
    ///   - select: The request's key and policies, or `.exempt`; called once per request whose body fits.
    public init(
      headers: RateLimitHeaders = .ietf, refusal: RateLimitRefusalBody = .text, maxBodySize: Int = 65_536,
      select: @escaping @Sendable (Request, Context) async throws -> RateLimitSelection
    ) {
      if maxBodySize < 0 {
        fatalError("RateLimitMiddleware: maxBodySize must not be negative, got maxBodySize: \(maxBodySize)")
      }
      self.init(
        policies: [], headers: headers, refusal: refusal, key: { _, _ in nil }, bodySelect: select,
        maxBodySize: maxBodySize)
    }

    /// Decides the request's key, then runs `next` (granted) or answers 429 (refused) or 400 (key too long).
    public func handle(
      _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
      guard let select else {
        if let bodySelect { return try await selectReadingBody(bodySelect, request, context, next) }
        guard let key = key(request, context) else { return try await next(request, context) }
        return try await limit(key, by: limits, request, context, next)
      }
      // The `select` form: the request's own gate over the policies it chose, decided as a fixed list is.
      let selection = select(request, context)
      guard let key = selection.key else { return try await next(request, context) }
      let gate = RateLimitGate(selection.policies, headers: limits.gate.headers, refusal: limits.gate.refusal)
      return try await limit(key, by: Self.limits(gate, madeOnce: false), request, context, next)
    }

    /// The form that reads the body: collects it (413 when it is over `maxBodySize`), asks `select` with it, then
    /// decides as the synchronous form does, handing the collected body on to the route.
    func selectReadingBody(
      _ select: @Sendable (Request, Context) async throws -> RateLimitSelection, _ request: Request,
      _ context: Context, _ next: (Request, Context) async throws -> Response
    ) async throws -> Response {
      var request = request
      do {
        _ = try await request.collectBody(upTo: maxBodySize)
      } catch is NIOTooManyBytesError {
        return response(RateLimitGate.answer(bodyOver: maxBodySize), context)
      }
      let selection = try await select(request, context)
      guard let key = selection.key else { return try await next(request, context) }
      let gate = RateLimitGate(selection.policies, headers: limits.gate.headers, refusal: limits.gate.refusal)
      return try await limit(key, by: Self.limits(gate, madeOnce: false), request, context, next)
    }

    /// Decides `key` by `limits`, then runs `next` (granted) or answers 429, 400 or 503. Inlined into `handle`:
    /// an async frame of its own cost 465 instructions a request (a task switch and an allocation; callgrind).
    @inline(__always)
    func limit(
      _ key: String, by limits: Limits, _ request: Request, _ context: Context,
      _ next: (Request, Context) async throws -> Response
    ) async throws -> Response {
      let start = DecisionTiming.start
      switch limits.gate.decideInProcess(key: key) {
      case .granted(let state)?:
        // In-process, the usual answer: no suspension (an `async` call may hop executors, a fifth of a
        // hello-world route's time) and one field to make.
        timing.record(since: start)
        limits.counters.countGranted()
        DecisionSpan.record(limits.gate.policies, "granted")
        var response = try await next(request, context)
        if let policyField = limits.policyField { response.headers.append(policyField) }
        if let state { response.headers.append(HTTPField(name: .rateLimit, value: state)) }
        return response
      case .other(let outcome)?:
        timing.record(since: start)
        return try await answer(outcome, key: key, by: limits, request, context, next)
      case nil:
        let result: RateLimitGate.Decided
        switch await limits.decideRequest(key: key, since: start, timing: timing, logger: context.logger) {
        case .success(let decided): result = decided
        case .failure(let error):
          return response(RateLimitGate.answer(unavailable: error, key: key, refusal: limits.gate.refusal), context)
        }
        return try await answer(
          result.outcome, key: key, by: limits, request, context, next, shadowRefused: result.shadowRefused,
          settlement: result.settlement, leases: result.leases)
      }
    }

    /// The response for any outcome but an in-process grant.
    func answer(
      _ outcome: RateLimitGate.Outcome, key: String, by limits: Limits, _ request: Request, _ context: Context,
      _ next: (Request, Context) async throws -> Response, shadowRefused: [String] = [],
      settlement: RateLimitGate.Settlement? = nil, leases: RateLimitGate.Leases = .none
    ) async throws -> Response {
      switch outcome {
      case .granted(let fields):
        limits.recordGranted(except: shadowRefused)
        // The leases of its concurrency policies, held until the response is done (SPEC 4.4).
        let held = leases.isEmpty ? nil : HeldLeases(leases)
        var response: Response
        do {
          response = try await next(request, context)
        } catch {
          held?.release()
          // Counted with the status Hummingbird will answer; the framework renders the error (no fields).
          await settlement?.settle(status: Int((error as? any HTTPResponseError)?.status.code ?? 500))
          throw error
        }
        // A given-back grant reports `r` after it (SPEC 4.3.1).
        let fields = await settlement?.settle(status: response.status.code, fields: fields) ?? fields
        for field in fields { Self.append(field, to: &response.headers) }
        if let held { response.body = response.body.releasing(held) }
        return response
      case .refused(let refusal):
        limits.recordRefused(refusal)
        return response(limits.gate.answer(for: outcome, key: key)!, context)
      case .badRequest:
        return response(limits.gate.answer(for: outcome, key: key)!, context)
      }
    }

    /// RateLimitHTTP's answer as Hummingbird's response, logged on the request's logger.
    func response(_ answer: RateLimitAnswer, _ context: Context) -> Response {
      if let log = answer.log {
        let metadata = Logger.Metadata(uniqueKeysWithValues: log.metadata.map { ($0.key, .string($0.value)) })
        context.logger.log(level: log.level == .warning ? .warning : .debug, "\(log.message)", metadata: metadata)
      }
      var headers = Self.httpFields(answer.fields)
      headers[.contentType] = answer.contentType
      return Response(
        status: HTTPResponse.Status(code: answer.status), headers: headers,
        body: ResponseBody(byteBuffer: ByteBuffer(string: answer.body)))
    }

    private static func httpFields(_ fields: [(name: String, value: String)]) -> HTTPFields {
      var result = HTTPFields()
      for field in fields { append(field, to: &result) }
      return result
    }

    private static func append(_ field: (name: String, value: String), to fields: inout HTTPFields) {
      guard let name = fieldNames[field.name] ?? HTTPField.Name(field.name) else { return }
      fields.append(HTTPField(name: name, value: field.value))
    }
  }

  @available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
  extension RateLimitMiddleware where Context: RemoteAddressRequestContext {
    /// Keyed by the client's address (`clientKey(address:ipv6Prefix:)`: IPv6 by /64 unless `ipv6Prefix` says
    /// otherwise), behind `trustedProxies` reverse proxies that each append to `X-Forwarded-For`
    /// (`clientAddress(peer:forwardedFor:trustedProxies:)`). With `trustedProxies: 0`
    /// forwarding headers are never read: a client cannot choose its own key. A request without a peer address
    /// (a Unix socket, a test without one) is not limited.
    ///
    /// - Parameters:
    ///   - policies: The limits every request takes from.
    ///   - headers: Which header fields responses carry.
    ///   - refusal: What a refusal's body says.
    ///   - trustedProxies: How many reverse proxies in front append to `X-Forwarded-For`.
    ///   - ipv6Prefix: The bits an IPv6 client is keyed by, 48 to 128 (anything else traps when the middleware
    ///     is made, naming the value).
    public init(
      _ policies: RateLimitPolicy..., headers: RateLimitHeaders = .ietf, refusal: RateLimitRefusalBody = .text,
      trustedProxies: Int = 0, ipv6Prefix: Int = 64
    ) {
      requireIPv6Prefix(ipv6Prefix)
      self.init(policies: policies, headers: headers, refusal: refusal) { request, context in
        guard let peer = context.remoteAddress else { return nil }
        // The usual peer, IPv4 with no proxy to read: keyed from its bits (no text printed, then parsed).
        if trustedProxies <= 0, case .v4(let v4) = peer { return clientKey(ipv4: v4.address) }
        let forwarded = trustedProxies > 0 ? request.headers[values: .xForwardedFor] : []
        return clientKey(
          peer: peer.ipAddress, forwardedFor: forwarded, trustedProxies: trustedProxies, ipv6Prefix: ipv6Prefix)
      }
    }
  }

  extension ResponseBody {
    /// This body, `held` released once its last byte is written (before the end of the body is sent), when a
    /// write fails (the client went away), when the writing ends any other way, or when the body is dropped
    /// unwritten (SPEC 4.4).
    fileprivate func releasing(_ held: HeldLeases) -> ResponseBody {
      ResponseBody(contentLength: contentLength) { writer in
        defer { held.release() }
        try await self.write(LeaseReleasingWriter(base: writer, held: held))
      }
    }
  }

  /// A body writer that releases a request's leases when the body ends or a write fails.
  private struct LeaseReleasingWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    let held: HeldLeases

    mutating func write(_ buffer: ByteBuffer) async throws {
      do {
        try await base.write(buffer)
      } catch {
        held.release()
        throw error
      }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
      held.release()
      let base = self.base
      try await base.finish(trailingHeaders)
    }
  }

  extension HTTPField.Name {
    static let xForwardedFor = Self(RateLimitFields.forwardedForName)!
    static let rateLimitPolicy = Self(RateLimitFields.policyName)!
    static let rateLimit = Self(RateLimitFields.stateName)!
  }

  /// The names of the fields a gate answers with, parsed once.
  private let fieldNames: [String: HTTPField.Name] = Dictionary(
    uniqueKeysWithValues: [RateLimitFields.policyName, RateLimitFields.stateName, RateLimitFields.retryAfterName]
      .map { ($0, HTTPField.Name($0)!) })
#endif
