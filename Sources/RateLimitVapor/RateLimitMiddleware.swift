#if Vapor
  import Logging
  import Metrics
  import NIOCore
  public import RateLimitHTTP
  import RateLimitMiddlewareSupport
  public import Vapor

  /// Rate limits the routes behind it: every request takes `permits` of each policy for its key, all or nothing.
  ///
  /// ```swift
  /// let searches = KeyedRateLimiter<String>(limit: 10, per: .seconds(10))
  /// app.grouped(RateLimitMiddleware(RateLimitPolicy("api", searches), trustedProxies: 1))
  ///   .get("search") { _ in "ok" }
  /// ```
  ///
  /// | the request | the response |
  /// | --- | --- |
  /// | no key (`key` returns `nil`, or no peer address) | the route's, untouched: not limited |
  /// | a key longer than 1,024 UTF-8 bytes | 400 Bad Request, no decision |
  /// | a `select` that reads the body (``init(headers:refusal:maxBodySize:select:)``), a body over `maxBodySize` | 413 Payload Too Large, no decision; the route never runs |
  /// | every policy grants | the route's, with `RateLimit-Policy` and `RateLimit` |
  /// | a policy refuses | 429 Too Many Requests, `Retry-After`, the RateLimit fields; the route never runs and no policy keeps anything |
  ///
  /// A concurrency policy (`RateLimitPolicy(_:concurrency:permits:mode:)`) holds the request's lease until its
  /// response is done: when the route returns, or for a streamed body once it writes its end, its error, or a
  /// write fails (the client went away); at once when the route throws. The gauge `ratelimit_in_flight{policy}`
  /// counts the leases this process holds.
  ///
  /// The address initializer keys by the connection's peer (`Request.remoteAddress`), never by Vapor's
  /// `Request.peerAddress`, which returns the first `X-Forwarded-For` entry: an address the client chooses.
  ///
  /// A refusal is logged at `debug` on the request's logger (policy, key, retry); the swift-metrics counter
  /// `ratelimit_requests` counts requests by `policy` and `decision` (`granted`: every policy granted;
  /// `refused`: this policy refused; `unavailable`: a limiter threw). An error a limiter throws while deciding
  /// (`.throwError`) takes back the request's other grants and is answered 503 Service Unavailable with
  /// `Retry-After: 1` and no RateLimit fields, logged at `warning`; so is a request refused only because a policy
  /// under `.deny` could not reach its store (SPEC 4.3.1: not a 429 "quota exceeded"). With
  /// `refusal: .problemDetails` the 503's body is the draft's `temporary-reduced-capacity` problem type.
  ///
  /// Every limited request's whole decision is recorded by the swift-metrics timer
  /// `ratelimit_decision_duration` (no dimensions), and a decision a `WhenUnavailable` policy answered
  /// (`RateLimitDecision.isFallback`) is counted by `ratelimit_fallback{policy}`.
  public struct RateLimitMiddleware: AsyncMiddleware {
    /// The fixed list's policies, made once (the `select` form makes its own per request).
    let limits: Limits
    let key: @Sendable (Request) -> String?
    /// The `select` form's closure; `nil` for a fixed list of policies.
    let select: (@Sendable (Request) -> RateLimitSelection)?
    /// The `select` form that reads the body (``init(headers:refusal:maxBodySize:select:)``); `nil` otherwise.
    let bodySelect: (@Sendable (Request) async throws -> RateLimitSelection)?
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
      key: @escaping @Sendable (Request) -> String?
    ) {
      self.init(policies: policies, headers: headers, refusal: refusal, key: key)
    }

    init(
      policies: [RateLimitPolicy], headers: RateLimitHeaders, refusal: RateLimitRefusalBody,
      key: @escaping @Sendable (Request) -> String?, select: (@Sendable (Request) -> RateLimitSelection)? = nil,
      bodySelect: (@Sendable (Request) async throws -> RateLimitSelection)? = nil, maxBodySize: Int = 0
    ) {
      self.limits = Self.limits(RateLimitGate(policies, headers: headers, refusal: refusal), madeOnce: true)
      self.key = key
      self.select = select
      self.bodySelect = bodySelect
      self.maxBodySize = maxBodySize
    }

    /// One list of policies as a request takes from it (the gate, its counters), with the `RateLimit-Policy`
    /// value of its in-process grants.
    typealias Limits = PolicyList<String>

    static func limits(_ gate: RateLimitGate, madeOnce: Bool) -> Limits {
      Limits(gate, madeOnce: madeOnce, policyField: gate.inProcessPolicyField)
    }

    /// Keyed by the client's address (`clientKey(address:ipv6Prefix:)`: IPv6 by /64 unless `ipv6Prefix` says
    /// otherwise), behind `trustedProxies` reverse proxies that each append to `X-Forwarded-For`. With
    /// `trustedProxies: 0` forwarding headers are never read: a client cannot choose its own key. A request
    /// without a peer address is not limited.
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
      self.init(policies: policies, headers: headers, refusal: refusal) { request in
        guard let peer = request.remoteAddress else { return nil }
        // The usual peer, IPv4 with no proxy to read: keyed from its bits (no text printed, then parsed).
        if trustedProxies <= 0, case .v4(let v4) = peer { return clientKey(ipv4: v4.address) }
        let forwarded = trustedProxies > 0 ? request.headers[RateLimitFields.forwardedForName] : []
        return clientKey(
          peer: peer.ipAddress, forwardedFor: forwarded, trustedProxies: trustedProxies, ipv6Prefix: ipv6Prefix)
      }
    }

    /// Policies chosen per request (SPEC 4.2): `select` gives each request's key and policies (`.limit`), or
    /// `.exempt` (no decision, no fields). The fixed-list initializers are the special case of one list.
    ///
    /// ```swift
    /// app.grouped(RateLimitMiddleware { request in
    ///   guard let user = request.auth.get(User.self) else {
    ///     return .limit(address, anonymous)
    ///   }
    ///   return user.isStaff ? .exempt : .limit(user.id, free)
    /// })
    /// ```
    ///
    /// Keys are the closure's own: to key by the client's address as the address initializer does (behind
    /// proxies, by /64), `clientKey(peer:forwardedFor:trustedProxies:ipv6Prefix:)` gives the same key; it is `nil`
    /// for a request without a peer address, which it does not limit (return `.exempt`, or a key of your own).
    ///
    /// - Parameters:
    ///   - headers: Which header fields responses carry; `RateLimitHeaders.ietf` by default.
    ///   - refusal: What a refusal's body says: `.text` by default, or `.problemDetails` (RFC 9457).
    ///   - select: The request's key and policies, or `.exempt`; called once per request.
    public init(
      headers: RateLimitHeaders = .ietf, refusal: RateLimitRefusalBody = .text,
      select: @escaping @Sendable (Request) -> RateLimitSelection
    ) {
      self.init(policies: [], headers: headers, refusal: refusal, key: { _ in nil }, select: select)
    }

    /// Policies chosen per request by a `select` that may suspend and read the request's body (SPEC 4.3.1): a
    /// login limited by the user name it posts. The middleware collects the body first, up to `maxBodySize`
    /// bytes, and hands it on to `select` and then to the route unchanged (`request.body.data`: both read the
    /// same bytes, and the route's own collection has nothing left to do).
    ///
    /// ```swift
    /// struct Login: Content { let user: String }
    /// let logins = KeyedRateLimiter<String>(limit: 5, per: .seconds(900))
    /// app.grouped(RateLimitMiddleware { request in
    ///   let login = try request.content.decode(Login.self)
    ///   return .limit(login.user, RateLimitPolicy("login", logins))
    /// }).post("login") { _ in "ok" }
    /// ```
    ///
    /// | the request | the response |
    /// | --- | --- |
    /// | a body over `maxBodySize` bytes | 413 Payload Too Large; `select` is not called, nothing decided, the route never runs |
    /// | `select` throws | its error, as the route's would be (an `AbortError`'s status, else 500); nothing decided, the route never runs |
    /// | anything else | as ``init(headers:refusal:select:)`` answers it |
    ///
    /// A closure that neither suspends nor throws is the synchronous form, which reads no body. To key by the
    /// client's address as the address initializer does, `clientKey(peer:forwardedFor:trustedProxies:ipv6Prefix:)`
    /// gives the same key; it is `nil` for a request without a peer address, which that initializer does not
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
      select: @escaping @Sendable (Request) async throws -> RateLimitSelection
    ) {
      if maxBodySize < 0 {
        fatalError("RateLimitMiddleware: maxBodySize must not be negative, got maxBodySize: \(maxBodySize)")
      }
      self.init(
        policies: [], headers: headers, refusal: refusal, key: { _ in nil }, bodySelect: select,
        maxBodySize: maxBodySize)
    }

    /// Decides the request's key, then runs `next` (granted) or answers 429 (refused) or 400 (key too long).
    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
      guard let select else {
        if let bodySelect { return try await selectReadingBody(bodySelect, request, next) }
        guard let key = key(request) else { return try await next.respond(to: request) }
        return try await limit(key, by: limits, request, next)
      }
      // The `select` form: the request's own gate over the policies it chose, decided as a fixed list is.
      let selection = select(request)
      guard let key = selection.key else { return try await next.respond(to: request) }
      let gate = RateLimitGate(selection.policies, headers: limits.gate.headers, refusal: limits.gate.refusal)
      return try await limit(key, by: Self.limits(gate, madeOnce: false), request, next)
    }

    /// The form that reads the body: collects it into `request.body.data` (413 when it is over `maxBodySize`), asks
    /// `select`, then decides as the synchronous form does.
    private func selectReadingBody(
      _ select: @Sendable (Request) async throws -> RateLimitSelection, _ request: Request,
      _ next: any AsyncResponder
    ) async throws -> Response {
      let body: ByteBuffer?
      do {
        // Vapor refuses a stream that reaches `max` bytes: one more lets exactly `maxBodySize` through.
        body = try await request.body.collect(max: maxBodySize == .max ? nil : maxBodySize + 1).get()
      } catch let error as any AbortError where error.status == .payloadTooLarge {
        return Self.response(RateLimitGate.answer(bodyOver: maxBodySize), request)
      }
      // A body the server had already collected is not checked by `collect`.
      if let body, body.readableBytes > maxBodySize {
        return Self.response(RateLimitGate.answer(bodyOver: maxBodySize), request)
      }
      let selection = try await select(request)
      guard let key = selection.key else { return try await next.respond(to: request) }
      let gate = RateLimitGate(selection.policies, headers: limits.gate.headers, refusal: limits.gate.refusal)
      return try await limit(key, by: Self.limits(gate, madeOnce: false), request, next)
    }

    /// Decides `key` by `limits`, then runs `next` (granted) or answers 429, 400 or 503. Inlined into
    /// `respond(to:chainingTo:)`: an async frame of its own costs a task switch and an allocation a request.
    @inline(__always)
    private func limit(
      _ key: String, by limits: Limits, _ request: Request, _ next: any AsyncResponder
    ) async throws -> Response {
      let outcome: RateLimitGate.Outcome
      var shadowRefused: [String] = []
      var settlement: RateLimitGate.Settlement?
      var leases = RateLimitGate.Leases.none
      let start = DecisionTiming.start
      switch limits.gate.decideInProcess(key: key) {
      case .granted(let state)?:
        // In-process, the usual answer: no suspension (an `async` call may hop executors, a fifth of a
        // hello-world route's time) and one field to make.
        timing.record(since: start)
        limits.counters.countGranted()
        DecisionSpan.record(limits.gate.policies, "granted", in: request.serviceContext)
        let response = try await next.respond(to: request)
        if let policyField = limits.policyField {
          response.headers.add(name: RateLimitFields.policyName, value: policyField)
        }
        if let state { response.headers.add(name: RateLimitFields.stateName, value: state) }
        return response
      case .other(let other)?:
        timing.record(since: start)
        outcome = other
      case nil:
        let result: RateLimitGate.Decided
        switch await limits.decideRequest(
          key: key, since: start, timing: timing, logger: request.logger, in: request.serviceContext)
        {
        case .success(let decided): result = decided
        case .failure(let error):
          return Self.response(
            RateLimitGate.answer(unavailable: error, key: key, refusal: limits.gate.refusal), request)
        }
        (outcome, shadowRefused, settlement) = (result.outcome, result.shadowRefused, result.settlement)
        leases = result.leases
      }
      switch outcome {
      case .granted(let fields):
        limits.recordGranted(except: shadowRefused, in: request.serviceContext)
        // The leases of its concurrency policies, held until the response is done (SPEC 4.4).
        let held = leases.isEmpty ? nil : HeldLeases(leases)
        let response: Response
        do {
          response = try await next.respond(to: request)
        } catch {
          held?.release()
          // Counted with the status Vapor will answer; the framework renders the error (no fields).
          await settlement?.settle(status: Int((error as? any AbortError)?.status.code ?? 500))
          throw error
        }
        // A given-back grant reports `r` after it (SPEC 4.3.1).
        let fields = await settlement?.settle(status: Int(response.status.code), fields: fields) ?? fields
        for field in fields { response.headers.add(name: field.name, value: field.value) }
        if let held { response.body = response.body.releasing(held) }
        return response
      case .refused(let refusal):
        limits.recordRefused(refusal, in: request.serviceContext)
        return Self.response(limits.gate.answer(for: outcome, key: key)!, request)
      case .badRequest:
        return Self.response(limits.gate.answer(for: outcome, key: key)!, request)
      }
    }

    /// RateLimitHTTP's answer as Vapor's response, logged on the request's logger.
    private static func response(_ answer: RateLimitAnswer, _ request: Request) -> Response {
      if let log = answer.log {
        let metadata = Logger.Metadata(uniqueKeysWithValues: log.metadata.map { ($0.key, .string($0.value)) })
        request.logger.log(level: log.level == .warning ? .warning : .debug, "\(log.message)", metadata: metadata)
      }
      var headers = HTTPHeaders(answer.fields.map { ($0.name, $0.value) })
      headers.replaceOrAdd(name: .contentType, value: answer.contentType)
      return Response(
        status: HTTPResponseStatus(statusCode: answer.status), headers: headers, body: .init(string: answer.body))
    }
  }

  extension Response.Body {
    /// This body, `held` released when the response is done (SPEC 4.4): at once for a body in memory; for a
    /// stream, when it writes its end or an error, when a write fails (the client went away), or when the stream
    /// is dropped unwritten (a HEAD request, a 204).
    ///
    /// Vapor 4 keeps a stream's closure to itself (`Response.Body.storage` is internal, and it has no completion
    /// callback): it is found through `Mirror`, by the names of Vapor 4's storage (`stream`, `asyncStream`, each
    /// with `count` then `callback`), and read as a struct of that layout. A body of another shape is released at
    /// once, as a body in memory.
    fileprivate func releasing(_ held: HeldLeases) -> Response.Body {
      guard let storage = Mirror(reflecting: self).descendant("storage"),
        let (label, stream) = Mirror(reflecting: storage).children.first.map({ ($0.label, $0.value) })
      else {
        held.release()
        return self
      }
      // The payload is Vapor's `BodyStream` or `AsyncBodyStream`: `count`, then `callback`. It is read as a struct of
      // that layout (a function cast from `Any` crashed calling an async closure), only when the names, order and
      // size match.
      guard Mirror(reflecting: stream).children.map(\.label) == ["count", "callback"] else {
        held.release()
        return self
      }
      switch label {
      case "stream":
        guard let original = Self.payload(stream, as: CallbackStream.self) else { break }
        let releasing: @Sendable (any BodyStreamWriter) -> Void = { writer in
          original.callback(LeaseReleasingStreamWriter(base: writer, held: held))
        }
        return original.count < 0 ? .init(stream: releasing) : .init(stream: releasing, count: original.count)
      case "asyncStream":
        guard let original = Self.payload(stream, as: AsyncStream.self) else { break }
        let releasing: @Sendable (any AsyncBodyStreamWriter) async throws -> Void = { writer in
          defer { held.release() }
          try await original.callback(LeaseReleasingAsyncWriter(base: writer, held: held))
        }
        return original.count < 0
          ? .init(asyncStream: releasing) : .init(asyncStream: releasing, count: original.count)
      default: break
      }
      held.release()
      return self
    }

    /// Vapor 4's `Response.Body.BodyStream`, field for field.
    private struct CallbackStream {
      let count: Int
      let callback: @Sendable (any BodyStreamWriter) -> Void
    }

    /// Vapor 4's `Response.Body.AsyncBodyStream`, field for field.
    private struct AsyncStream {
      let count: Int
      let callback: @Sendable (any AsyncBodyStreamWriter) async throws -> Void
    }

    /// The value in `box` as `Layout`, when its size and alignment match; `nil` otherwise.
    private static func payload<Layout>(_ box: Any, as layout: Layout.Type) -> Layout? {
      func read<Value>(_ value: Value) -> Layout? {
        guard MemoryLayout<Value>.size == MemoryLayout<Layout>.size,
          MemoryLayout<Value>.alignment == MemoryLayout<Layout>.alignment
        else { return nil }
        return withUnsafeBytes(of: value) { $0.load(as: Layout.self) }
      }
      return _openExistential(box, do: read)
    }
  }

  /// A stream writer that releases a request's leases at the stream's end or error, or when a write fails.
  private struct LeaseReleasingStreamWriter: BodyStreamWriter {
    let base: any BodyStreamWriter
    let held: HeldLeases

    var eventLoop: any EventLoop { base.eventLoop }

    func write(_ result: BodyStreamResult, promise: EventLoopPromise<Void>?) {
      switch result {
      case .end, .error:
        held.release()
        base.write(result, promise: promise)
      case .buffer:
        let written = base.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenFailure { [held] _ in held.release() }
        written.futureResult.cascade(to: promise)
        base.write(result, promise: written)
      }
    }
  }

  /// The same for an async stream.
  private struct LeaseReleasingAsyncWriter: AsyncBodyStreamWriter {
    let base: any AsyncBodyStreamWriter
    let held: HeldLeases

    func write(_ result: BodyStreamResult) async throws {
      switch result {
      case .end, .error:
        held.release()
        try await base.write(result)
      case .buffer:
        do {
          try await base.write(result)
        } catch {
          held.release()
          throw error
        }
      }
    }
  }
#endif
