/// Operating a key (SPEC 4.2): read what is left, charge a cost known only afterwards, refund, reset, block. Each
/// is one lock and one clock read, O(1) or O(log n) in the key's bookings; synchronous on the concrete type.
///
/// ```swift
/// // Logins: support unlocks a client.
/// logins.reset(address)
/// // An LLM gateway: take an estimate before the call,
/// // settle with the tokens really used.
/// try await tokens.acquire(estimate, for: team)
/// let used = try await model.complete(prompt)
/// if used > estimate {
///   tokens.charge(used - estimate, for: team)
/// } else {
///   tokens.refund(estimate - used, for: team)
/// }
/// ```
///
/// `acquire(estimate, …)` throws above the capacity and traps at 0: clamp an estimate into `1...capacity`.
extension KeyedRateLimiter {
  /// What ``decide(_:for:)`` would answer now, taking nothing and changing nothing (a `decide` right after it
  /// answers the same). Like `decide` it asks for `permits` (at least 1), so its `remaining` is what would be
  /// left *after* such a grant: a fresh key of 5 per minute peeks `remaining` 4.
  public func peek(_ permits: Int = 1, for key: Key) -> RateLimitDecision {
    door.check(permits)
    return door.report(
      store.operate {
        $0.peek(permits, for: key)
      } bucket: {
        $0.peek(permits, for: key)
      })
  }

  /// Takes `permits` now whatever the limit (a cost known only afterwards): the key may go past its limit, into
  /// debt, and later requests wait until the rule has paid it. Taken at now, behind no one and ahead of no one.
  ///
  /// - Parameters:
  ///   - permits: 0 or more (0 changes nothing; negative traps, naming the value); above the capacity too.
  ///   - key: The key.
  /// - Returns: The key after the charge, as `decide` reports a grant (`isGranted` true, no `retryAfter`).
  @discardableResult
  public func charge(_ permits: Int, for key: Key) -> RateLimitDecision {
    requireNonNegative(permits, "permits", of: "KeyedRateLimiter")
    return door.report(
      store.operate {
        $0.charge(permits, for: key)
      } bucket: {
        $0.charge(permits, for: key)
      })
  }

  /// Gives back up to `permits` of what the key has taken up to now, the latest first: never more than it took,
  /// never a booking ahead. A forgotten key stays as it is.
  ///
  /// - Parameters:
  ///   - permits: 0 or more (0 changes nothing; negative traps, naming the value).
  ///   - key: The key.
  /// - Returns: The key after the refund, as `decide` reports a grant.
  @discardableResult
  public func refund(_ permits: Int, for key: Key) -> RateLimitDecision {
    requireNonNegative(permits, "permits", of: "KeyedRateLimiter")
    return door.report(
      store.operate {
        $0.refund(permits, for: key)
      } bucket: {
        $0.refund(permits, for: key)
      })
  }

  /// Forgets all the key has taken up to now, any debt and any block: the key is as if never used. Bookings
  /// ahead (waiting `acquire`s, reservations for later instants) stay.
  public func reset(_ key: Key) {
    store.operate {
      $0.reset(key)
    } bucket: {
      $0.reset(key)
    }
  }

  /// Refuses the key everything from now until `duration` from now (that instant excluded), whatever its
  /// quota; a later block may extend it, one that ends no later changes nothing, `.zero` changes nothing.
  /// While blocked: `tryAcquire` is `false`; `decide` and `peek` are refused with `remaining` 0 and a
  /// `retryAfter` no earlier than the block's end; `reserve`/`acquire` book as the same request made at the
  /// block's end. A blocked key is held (and counted by ``count``) until its block ends.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - duration: How long from now; must not be negative (a trap names the value).
  public func block(_ key: Key, for duration: Duration) {
    requireNonNegative(duration, "duration", of: "KeyedRateLimiter")
    store.operate {
      $0.block(key, for: duration)
    } bucket: {
      $0.block(key, for: duration)
    }
  }
}

extension KeyedRateLimiter.Store {
  /// Runs `window` or `bucket` on the store, each specialized for its rule.
  func operate<Result>(
    _ window: (KeyedPermitStore<Key, SlidingWindow<KeyedWindowLog>>) -> Result,
    bucket: (KeyedPermitStore<Key, TokenBucket>) -> Result
  ) -> Result {
    switch self {
    case .window(let store): window(store)
    case .bucket(let store): bucket(store)
    }
  }
}

/// A ``SharedKeyedLimiter`` that can also be operated (SPEC 4.2): peek, charge, refund, reset and block a key.
/// Adopted by ``KeyedRateLimiter`` (whose own methods stay synchronous: no default implementations here) and by
/// RateLimitPostgres's `PostgresRateLimiter`. A middleware policy with a `penalty` needs one.
public protocol OperableKeyedLimiter: SharedKeyedLimiter {
  /// What `decide(permits, for: key)` would answer now, taking nothing.
  func peek(_ permits: Int, for key: String) async throws -> RateLimitDecision
  /// Takes `permits` now whatever the limit; reports the key after.
  func charge(_ permits: Int, for key: String) async throws -> RateLimitDecision
  /// Gives back up to `permits` of what the key took, the latest first; reports the key after.
  func refund(_ permits: Int, for key: String) async throws -> RateLimitDecision
  /// Forgets all the key has taken up to now, and any block.
  func reset(_ key: String) async throws
  /// Refuses the key everything for `duration` from now.
  func block(_ key: String, for duration: Duration) async throws
}

extension KeyedRateLimiter: OperableKeyedLimiter where Key == String {}

extension KeyedRateLimiter: PenalisingLimiter where Key == String {
  /// Decides undoably; refused by the rule (not by a block in force), blocks `key` for `penalty` and reports the
  /// refusal after it (RateLimitHTTP's penalties). Synchronous: it never suspends.
  package func decidePenalising(_ permits: Int, for key: String, penalty: Duration) -> UndoableDecision {
    let wasBlocked = store.operate {
      $0.isBlocked(key)
    } bucket: {
      $0.isBlocked(key)
    }
    let made = decideUndoably(permits, for: key)
    guard !made.decision.isGranted, !wasBlocked else { return made }
    block(key, for: penalty)
    return UndoableDecision(peek(permits, for: key), undo: nil)
  }
}
