/// The rules of ``RateLimiter``, kept separately for every key: "100 requests per minute per client".
///
/// ```swift
/// let perClient = KeyedRateLimiter<String>(limit: 100, per: .seconds(60))
/// if perClient.tryAcquire(for: clientIP) {
///   handle(request)
/// } else {
///   reject(retryAfter: perClient.retryAfter(for: clientIP))   // 429
/// }
/// ```
///
/// Each key behaves exactly as its own `RateLimiter` with the same parameters and clock, created fresh the
/// first time the key is used; keys never affect each other. A key whose state is back to a fresh limiter's
/// (sliding window: no booking in the last window or ahead; token bucket: full and nothing booked ahead) is
/// forgotten and its memory freed, during later operations on any key (each new key examines two held ones,
/// and one operation in 16 of the others does too: no operation stalls, and forgetting outpaces a stream of
/// one-off keys). Forgetting is invisible, so memory follows the keys active within the last window, not every
/// key ever seen. A key's state is a small value in one dictionary, not an object.
///
/// Time is counted as ``RateLimiter`` counts it, in whole nanoseconds of `Int64`: a `window`, `maxDelay` or
/// booking instant beyond the 292-year horizon saturates there ("not again"; `retryAfter` and a reservation's
/// `time` and `delay` report at most the horizon), and never overflows into "allow everything".
public final class KeyedRateLimiter<Key: Hashable & Sendable>: Sendable {
  /// N, per key.
  public var limit: Int { door.limit }
  /// T. `.zero`: no limiting; every key is always fresh.
  public var window: Duration { door.window }
  /// B, per key; `nil` for strict sliding windows.
  public var burst: Int? { door.burst }
  /// The parameters, the checks of every request, and `acquire`: written once for every limiter of permits.
  let door: PermitFrontDoor
  /// The time in which `limit` (N, or B) permits are allocated (``RateLimitDecision/quotaWindow``).
  package var quotaWindow: Duration { door.quotaWindow }
  let store: Store

  /// The two stores, each concrete so that its code is specialized for its rule. The entry points are also
  /// specialized (`@_specialize`) for `String` and `Int` keys: the generic body, which other key types run, calls
  /// the rule and the dictionary through witness tables and is about 5 times slower.
  enum Store: InProcessPermitStore {
    case window(KeyedPermitStore<Key, SlidingWindow<KeyedWindowLog>>)
    case bucket(KeyedPermitStore<Key, TokenBucket>)

    var clock: PermitClock {
      switch self {
      case .window(let store): store.clock
      case .bucket(let store): store.clock
      }
    }

    var waiters: WaiterTimeline {
      switch self {
      case .window(let store): store.waiters
      case .bucket(let store): store.waiters
      }
    }

    func tryAcquire(_ permits: Int, for key: Key) -> Bool {
      switch self {
      case .window(let store): store.tryAcquire(permits, for: key)
      case .bucket(let store): store.tryAcquire(permits, for: key)
      }
    }

    func reserve(_ permits: Int, for key: Key, within maxDelay: Duration?) -> BookingOutcome {
      switch self {
      case .window(let store): store.reserve(permits, for: key, within: maxDelay)
      case .bucket(let store): store.reserve(permits, for: key, within: maxDelay)
      }
    }

    func retryAfter(_ permits: Int, for key: Key) -> Int64? {
      switch self {
      case .window(let store): store.retryAfter(permits, for: key)
      case .bucket(let store): store.retryAfter(permits, for: key)
      }
    }

    func canceller(for key: Key) -> any BookingCanceller {
      switch self {
      case .window(let store): KeyedCanceller(store: store, key: key)
      case .bucket(let store): KeyedCanceller(store: store, key: key)
      }
    }

    var count: Int {
      switch self {
      case .window(let store): store.count
      case .bucket(let store): store.count
      }
    }
  }

  /// A strict sliding window per key: never more than `limit` permits for one key in any window of `window`.
  ///
  /// - Parameters:
  ///   - limit: N, at least 1.
  ///   - window: T; must not be negative.
  ///   - clock: Time source and timer, shared by every key.
  public init(limit: Int, per window: Duration, clock: some RateLimitClock = .dispatch) {
    door = PermitFrontDoor(limit: limit, window: window, burst: nil, of: "KeyedRateLimiter")
    let rule = SlidingWindow<KeyedWindowLog>(limit: limit, window: Nanoseconds.window(window))
    store = .window(KeyedPermitStore(rule: rule, parameters: door.parameters, clock: PermitClock(clock)))
  }

  /// A token bucket per key: one permit every `window / limit`, up to `burst` at once; each starts full.
  ///
  /// - Parameters:
  ///   - limit: N, at least 1.
  ///   - window: T; must not be negative.
  ///   - burst: B, at least 1.
  ///   - clock: Time source and timer, shared by every key.
  public init(limit: Int, per window: Duration, burst: Int, clock: some RateLimitClock = .dispatch) {
    door = PermitFrontDoor(limit: limit, window: window, burst: burst, of: "KeyedRateLimiter")
    let rule = TokenBucket(limit: Int64(limit), window: Nanoseconds.window(window), burst: burst)
    store = .bucket(KeyedPermitStore(rule: rule, parameters: door.parameters, clock: PermitClock(clock)))
  }

  /// ``RateLimiter/tryAcquire(_:)`` for `key`.
  ///
  /// - Complexity: O(1) amortized: one lock, one clock read, one hash lookup; no allocation for a key already
  ///   present.
  @_specialize(where Key == String)
  @_specialize(where Key == Int)
  public func tryAcquire(_ permits: Int = 1, for key: Key) -> Bool {
    door.check(permits)
    return store.tryAcquire(permits, for: key)
  }

  /// ``RateLimiter/reserve(_:within:)`` for `key`.
  @_specialize(where Key == String)
  @_specialize(where Key == Int)
  public func reserve(_ permits: Int = 1, for key: Key, within maxDelay: Duration? = nil) -> RateLimiter.Reservation? {
    door.check(permits, within: maxDelay)
    guard case .booked(let booking, let now, _) = store.reserve(permits, for: key, within: maxDelay) else { return nil }
    return RateLimiter.Reservation(booking, madeAt: now, canceller: store.canceller(for: key))
  }

  /// ``RateLimiter/acquire(_:within:)`` for `key`: waits its turn among that key's requests.
  public func acquire(_ permits: Int = 1, for key: Key, within maxDelay: Duration? = nil) async throws {
    try await door.acquire(permits, for: key, within: maxDelay, from: store)
  }

  /// ``RateLimiter/retryAfter(_:)`` for `key`: what a 429's `Retry-After` should say.
  @_specialize(where Key == String)
  @_specialize(where Key == Int)
  public func retryAfter(_ permits: Int = 1, for key: Key) -> Duration? {
    door.check(permits)
    return store.retryAfter(permits, for: key).map(Duration.nanoseconds)
  }

  /// The keys whose state differs from a fresh limiter's, now. Exact: it forgets every fresh key first.
  ///
  /// - Complexity: O(keys held).
  public var count: Int { store.count }
}
