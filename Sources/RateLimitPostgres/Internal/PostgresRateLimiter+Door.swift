#if Postgres
  import NIOCore
  import RateLimit

  /// The door every public operation of ``PostgresRateLimiter`` goes through (Go's `rate.go`, every public method
  /// over one `reserveN`): a ``Request``, the preamble once (the permits checked, the key's bytes made, this
  /// process's clock read, the parameters read, the ``Route``), the operation's own answer for that route, and
  /// the ``PostgresRateLimiter/WhenUnavailable`` policy when the database cannot answer.
  ///
  /// ```
  /// check → key bytes → clock → route:
  ///   beyond the capacity | no limiting | refused here | the database
  ///   each: the operation's answer; Unavailable: the policy
  /// ```
  extension PostgresRateLimiter {
    /// One request at the door: what is asked, of how many permits, for which key, at which reading of this
    /// process's clock.
    struct Request {
      /// What is asked; each decides its route as the table in ``PostgresRateLimiter/route(_:)`` says.
      enum Operation {
        /// `tryAcquire`: takes now or nothing.
        case tryAcquire
        /// `retryAfter`: reads the wait, books nothing.
        case retryAfter
        /// `reserve` and `acquire`: a booking within `maxDelay`.
        case reserve(within: Duration?)
        /// `decide`, its grant taken back exactly or not.
        case decide
        /// `peek`: the decision made and rolled back.
        case peek
        /// A decision that blocks the key for `penalty` nanoseconds if the rule refuses it.
        case decidePenalising(penalty: Int64)
        /// `charge`, `refund`, `reset`, `block` or a penalty, of `amount`.
        case operate(KeyOperation, amount: Int64)
      }

      let operation: Operation
      let permits: Int
      let key: DatabaseKey
      /// `localClock` read once at the door: the local refusal is judged at it, and a refusal the database
      /// answers is remembered from it (the instant the request was sent, or earlier).
      let now: Duration

      /// Another operation on the same key, at the same reading (a penalty after a refusal, a report after it).
      func asking(_ operation: Operation) -> Request {
        Request(operation: operation, permits: permits, key: key, now: now)
      }

      /// Whether a refusal in force here answers it: `tryAcquire` always (a refusal of one permit refuses
      /// more); `retryAfter` and the decisions for one permit only (a local refusal knows the wait for one
      /// permit, not a larger request's); never a booking, a `peek` or an operation.
      var isRefusableHere: Bool {
        switch operation {
        case .tryAcquire: true
        case .retryAfter, .decide, .decidePenalising: permits == 1
        case .reserve, .peek, .operate: false
        }
      }
    }

    /// Where the door sends a request.
    enum Route {
      /// More permits than the capacity.
      case beyondCapacity
      /// No limiting (`window: .zero`): only a block is stored.
      case unlimited
      /// Refused in this process until the refusal's end (`localRefusals`), without a round trip.
      case refusedHere(LocalRefusals.Refusal)
      /// The database decides, in one round trip.
      case database
    }

    /// Runs `request`'s preamble once, then `answer` for its route; when the database cannot answer, `policy`.
    func perform<Answer>(
      _ operation: Request.Operation, _ permits: Int, for key: String,
      _ answer: (Request, Route) async throws -> Answer,
      whenUnavailable policy: (Unavailable) throws -> Answer
    ) async throws -> Answer {
      // An operation's amount is checked by its public method (0 is allowed).
      if case .operate = operation {} else { door.check(permits) }
      let key = try DatabaseKey(key)
      let request = Request(operation: operation, permits: permits, key: key, now: store.localClock.now)
      return try await answering {
        try await answer(request, route(request))
      } whenUnavailable: {
        try policy($0)
      }
    }

    /// The joint decisions' door (several limiters' parts for one key: a middleware's policies): each part's
    /// permits checked by its limiter, then the key's bytes made once, as ``perform(_:_:for:_:whenUnavailable:)``
    /// makes them.
    static func jointKey(_ limiters: [PostgresRateLimiter], permits: some Sequence<Int>, key: String) throws
      -> ByteBuffer
    {
      for (limiter, permits) in zip(limiters, permits) { limiter.door.check(permits) }
      return try DatabaseKey(key).bytes
    }

    /// The route of `request`, the parameters read once:
    ///
    /// | operation | beyond the capacity | no limiting | refused here |
    /// |---|---|---|---|
    /// | `tryAcquire`, `retryAfter`, `reserve` | first, no round trip | next | `tryAcquire` any permits, `retryAfter` one, `reserve` never |
    /// | `decide`, `peek`, `decidePenalising` | after no limiting (a read reports the key) | first | one permit (`peek` never) |
    /// | an operation | never | unless it sets or lifts a block | never |
    func route(_ request: Request) -> Route {
      let parameters = door.parameters
      let beyond = request.permits > parameters.capacity
      switch request.operation {
      case .operate(let operation, _):
        // With no limiting only a block is stored, so only what sets or lifts one goes to the database.
        return parameters.isUnlimited && !operation.storesBlock ? .unlimited : .database
      case .tryAcquire, .retryAfter, .reserve:
        if beyond { return .beyondCapacity }
        if parameters.isUnlimited { return .unlimited }
      case .decide, .peek, .decidePenalising:
        if parameters.isUnlimited { return .unlimited }
        if beyond { return .beyondCapacity }
      }
      guard request.isRefusableHere, let refusal = store.refusalInForce(for: request.key.bytes, at: request.now)
      else { return .database }
      return .refusedHere(refusal)
    }

    /// A decision of `request` asked of the database (`ratelimit_decide`, alone or coalesced): `tryAcquire` and
    /// `decide` take now and remember a refusal here, `retryAfter` reads, `reserve` books within its delay.
    func ask(_ request: Request) async throws -> Decision {
      let (mode, maxDelay): (Mode, Int64?) =
        switch request.operation {
        case .retryAfter: (.retryAfter, nil)
        case .reserve(let maxDelay): (.reserve, maxDelay.map { wholeNanoseconds($0, roundingUp: false) })
        default: (.tryAcquire, 0)  // `tryAcquire` and `decide`
        }
      return try await store.ask(
        mode, request.permits, key: request.key.bytes, maxDelay: maxDelay, at: request.now,
        remembering: mode == .tryAcquire)
    }

    /// What ``whenUnavailable`` answers for a decision the database could not make: throw, `allow`'s answer,
    /// `deny`'s, or the fallback limiter's.
    func answer<Value>(
      _ unavailable: Unavailable, allow: @autoclosure () -> Value, deny: @autoclosure () -> Value,
      fallback: (KeyedRateLimiter<String>) -> Value
    ) throws -> Value {
      switch whenUnavailable {
      case .throwError: throw unavailable.error
      case .allow: return allow()
      case .deny: return deny()
      case .fallback(let local): return fallback(local)
      }
    }
  }
#endif
