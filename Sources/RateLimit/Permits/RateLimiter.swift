/// Hands out permits, at most `limit` per `window`: "the server allows 5 requests per 10 seconds". There is no
/// action: callers ask before they act, and wait their turn, first come first served.
///
/// ```swift
/// actor GitHubClient {
///   private let limiter = RateLimiter(limit: 5, per: .seconds(10))
///   func get(_ path: String) async throws -> [UInt8] {
///     try await limiter.acquire()   // waits its turn; none dropped
///     return try await fetch(path)
///   }
/// }
/// ```
///
/// Two algorithms:
/// - **Strict sliding window** (`RateLimiter(limit:per:)`, the default): no window of length `window`, anywhere,
///   ever holds more than `limit` permits. Pick it against someone else's quota.
/// - **Token bucket** (`RateLimiter(limit:per:burst:)`): refills one permit every `window / limit`, holds up to
///   `burst`; the same state after the same calls as Go's `golang.org/x/time/rate`. Pick it to smooth your own
///   load while allowing bursts; note that it lets up to `limit + burst - 1` into some window of length `window`.
///
/// ```
/// limit 2 per 4 ticks, 6 requests at tick 0: permits granted per tick
///                      0 1 2 3 4 5 6 7 8
/// sliding window       2 . . . 2 . . . 2   never more than 2 in any 4 ticks
/// token bucket, B = 2  2 . 1 . 1 . 1 . .   3 (2N − 1) within ticks 0 to 3
/// ```
///
/// Every grant is a *booking*: permits at an instant. ``tryAcquire(_:)`` books now or not at all; ``reserve(_:within:)``
/// books the earliest instant possible and tells you when; ``acquire(_:within:)`` books and waits for it. No request
/// is booked earlier than one made before it, so `tryAcquire` fails while anyone waits. Times are whole
/// nanoseconds of the clock (booking instants between two nanoseconds are rounded up).
///
/// **The 292-year horizon.** The rules count whole nanoseconds of `Int64`, about 292 years. A `window`, a
/// `maxDelay` or a booking instant beyond that saturates at the horizon: a window that long means "not again",
/// and ``retryAfter(_:)``, ``Reservation/delay`` and ``Reservation/time`` report at most the horizon. Nothing
/// overflows into "allow everything" (Go's `TestTinyLimit`, golang/go#71154):
///
/// ```swift
/// let tiny = RateLimiter(limit: 1, per: .seconds(10_000_000_000), burst: 1)
/// tiny.tryAcquire()   // true
/// tiny.tryAcquire()   // false, and retryAfter() is the horizon minus now
/// ```
///
/// All methods are safe from any thread at once. Test code that awaits `acquire()` with a ``ManualClock``: start
/// the tasks, `await clock.waitUntilScheduled(atLeast: k)`, then advance.
public final class RateLimiter: Sendable {
  /// N: at most this many permits per ``window`` (sliding window), or the refill rate per ``window`` (bucket).
  public var limit: Int { door.limit }
  /// T. `.zero`: no limiting (any request up to the capacity is granted at once).
  public var window: Duration { door.window }
  /// B, the bucket's size; `nil` for a strict sliding window.
  public var burst: Int? { door.burst }
  /// The parameters, the checks of every request, and `acquire`: written once for every limiter of permits.
  let door: PermitFrontDoor
  /// The rule's state behind its lock: a sliding window's or a token bucket's.
  let core: Core

  /// The two cores, each concrete so that its code is specialized (an existential over the generic core would run
  /// unspecialized generic code on every call: 6 times the cost).
  enum Core: InProcessPermitStore {
    case window(PermitCore<SlidingWindow<BookingLog>>)
    case bucket(PermitCore<TokenBucket>)

    /// One key: the limiter's.
    typealias Key = Void

    var clock: PermitClock {
      switch self {
      case .window(let core): core.clock
      case .bucket(let core): core.clock
      }
    }

    var waiters: WaiterTimeline {
      switch self {
      case .window(let core): core.waiters
      case .bucket(let core): core.waiters
      }
    }

    func canceller(for _: Void) -> any BookingCanceller {
      switch self {
      case .window(let core): core
      case .bucket(let core): core
      }
    }

    func tryAcquire(_ permits: Int) -> Bool {
      switch self {
      case .window(let core): core.tryAcquire(permits)
      case .bucket(let core): core.tryAcquire(permits)
      }
    }

    func reserve(_ permits: Int, for _: Void, within maxDelay: Duration?) -> BookingOutcome {
      switch self {
      case .window(let core): core.reserve(permits, within: maxDelay)
      case .bucket(let core): core.reserve(permits, within: maxDelay)
      }
    }

    func retryAfter(_ permits: Int) -> Int64? {
      switch self {
      case .window(let core): core.retryAfter(permits)
      case .bucket(let core): core.retryAfter(permits)
      }
    }
  }

  /// Creates a strict sliding window: never more than `limit` permits granted in any window of length `window`.
  ///
  /// With `limit: 1`, ``tryAcquire(_:)`` is exactly ``ThrottleMode/leading``'s rule: granted if
  /// `now − lastGrant >= window`. Memory: the bookings of the last window plus those ahead, 24 bytes each.
  ///
  /// - Parameters:
  ///   - limit: N, at least 1 (anything else traps, naming the value).
  ///   - window: T; must not be negative. `.zero` means no limiting.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default, a ``ManualClock`` in tests.
  public init(limit: Int, per window: Duration, clock: some RateLimitClock = .dispatch) {
    door = PermitFrontDoor(limit: limit, window: window, burst: nil, of: "RateLimiter")
    let rule = SlidingWindow<BookingLog>(limit: limit, window: Nanoseconds.window(window))
    core = .window(PermitCore(rule: rule, parameters: door.parameters, clock: PermitClock(clock)))
  }

  /// Creates a token bucket: one permit every `window / limit` on average, up to `burst` at once; starts full.
  ///
  /// Refills exactly (no floating point): over k windows it never grants more than `k·limit + burst`.
  ///
  /// - Parameters:
  ///   - limit: N, permits refilled per `window`; at least 1.
  ///   - window: T; must not be negative. `.zero` means no limiting (up to `burst` at once).
  ///   - burst: B, the bucket's size and the most one request can take; at least 1.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default.
  public init(limit: Int, per window: Duration, burst: Int, clock: some RateLimitClock = .dispatch) {
    door = PermitFrontDoor(limit: limit, window: window, burst: burst, of: "RateLimiter")
    let rule = TokenBucket(limit: Int64(limit), window: Nanoseconds.window(window), burst: burst)
    core = .bucket(PermitCore(rule: rule, parameters: door.parameters, clock: PermitClock(clock)))
  }

  /// Takes `permits` now if they can be granted now; never waits, never books for later.
  ///
  /// ```swift
  /// if limiter.tryAcquire() { handle(request) } else { reject(request) }
  /// ```
  ///
  /// - Parameter permits: At least 1. More than the capacity (`limit`, or `burst`) is never granted.
  /// - Returns: Whether the permits were granted (and booked at `now`). `false` while anyone waits for a
  ///   later booking: no request overtakes a waiting one.
  /// - Complexity: O(1) amortized: one lock, one clock read, no allocation once warm.
  public func tryAcquire(_ permits: Int = 1) -> Bool {
    door.check(permits)
    return core.tryAcquire(permits)
  }

  /// Books `permits` at the earliest instant they can be granted, behind every earlier booking.
  ///
  /// ```swift
  /// if let booking = limiter.reserve(within: .seconds(1)) {
  ///   try await Task.sleep(for: booking.delay)   // or schedule the work then
  ///   send()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - permits: At least 1.
  ///   - maxDelay: If the booking would be later than `now + maxDelay`, nothing is booked. `nil`: no bound;
  ///     `.zero`: the same as ``tryAcquire(_:)``. Must not be negative.
  /// - Returns: The booking, or `nil` (nothing booked) if the permits can never be granted (more than the
  ///   capacity) or not within `maxDelay`.
  /// - Complexity: O(1) for a token bucket; O(bookings in the window) for a sliding window.
  public func reserve(_ permits: Int = 1, within maxDelay: Duration? = nil) -> Reservation? {
    door.check(permits, within: maxDelay)
    guard case .booked(let booking, let now, _) = core.reserve(permits, for: (), within: maxDelay) else {
      return nil
    }
    return Reservation(booking, madeAt: now, canceller: core.canceller(for: ()))
  }

  /// Waits for its turn, then returns with the permits granted.
  ///
  /// Books as ``reserve(_:within:)`` does, then waits until the booking's instant; a booking for now returns at
  /// once. Waiters are resumed in booking order. If the calling task is cancelled while it waits, the booking is
  /// cancelled (as ``Reservation/cancel()``) and it throws `CancellationError` at once. A waiter holds no thread:
  /// it has exactly one piece of work scheduled on the clock until it is resumed.
  ///
  /// - Parameters:
  ///   - permits: At least 1.
  ///   - maxDelay: The longest it may wait; `nil`: no bound.
  /// - Throws: `CancellationError` (already cancelled: nothing booked; cancelled while waiting: booking given
  ///   back), ``RateLimiterError/exceedsCapacity(requested:capacity:)`` or
  ///   ``RateLimiterError/exceedsMaxDelay(delay:maxDelay:)`` at once, with nothing booked.
  public func acquire(_ permits: Int = 1, within maxDelay: Duration? = nil) async throws {
    try await door.acquire(permits, for: (), within: maxDelay, from: core)
  }

  /// How long a request made now would wait: the `delay` ``reserve(_:within:)`` would give, without booking.
  ///
  /// ```swift
  /// reject(retryAfter: limiter.retryAfter())   // a 429's Retry-After
  /// ```
  ///
  /// - Returns: `.zero` if granted now; `nil` if it never can be (more than the capacity).
  public func retryAfter(_ permits: Int = 1) -> Duration? {
    door.check(permits)
    return core.retryAfter(permits).map(Duration.nanoseconds)
  }

  /// A booking: `permits` granted at `time`. Cancel it if you will not use it.
  public struct Reservation: Sendable {
    /// How many permits are booked.
    public let permits: Int
    /// The clock instant the permits are granted.
    public let time: Duration
    /// ``time`` minus the instant the reservation was made: how long to wait before acting.
    public let delay: Duration
    let booking: Booking
    let canceller: (any BookingCanceller)?

    init(permits: Int, time: Duration, delay: Duration, booking: Booking, canceller: (any BookingCanceller)?) {
      self.permits = permits
      self.time = time
      self.delay = delay
      self.booking = booking
      self.canceller = canceller
    }

    /// Gives the booking back, at or before its ``time``: its permits return, except those that later bookings
    /// already counted on (sliding window: the booking leaves the log, later bookings keep their instants; token
    /// bucket: as Go's `Reservation.Cancel`). After its time (the permits were granted and used) it does
    /// nothing; a second cancel does nothing more.
    public func cancel() {
      canceller?.cancel(booking)
    }
  }
}
