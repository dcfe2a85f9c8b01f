/// The front door of every limiter of permits, written once: ``RateLimiter``, ``KeyedRateLimiter`` and
/// RateLimitPostgres's `PostgresRateLimiter` each keep one, and differ only in their ``PermitStore``.
///
/// | written here, once | each store's own |
/// |---|---|
/// | the rule's parameters, checked when the limiter is made | where the state is kept (a lock, a dictionary, a row) |
/// | the checks of every request (`permits`, `maxDelay`), with the façade's name in the trap | how a request is booked |
/// | `acquire`: cancelled already, book, throw the refusal, or wait for the booking's instant | how it waits, and gives the booking back when cancelled |
///
/// The public form of a decision is written once too, in ``PermitVerdict``.
package struct PermitFrontDoor: Sendable {
  /// The parameters now: those the limiter was made with, until an `update` (SPEC 4.2) changes them.
  private let cell: ParameterCell
  /// The façade's name, in every trap's message.
  private let owner: StaticString

  /// Checks the parameters (`limit` and `burst` at least 1, `window` not negative), trapping with a message that
  /// names `owner`, the parameter and its value.
  package init(limit: Int, window: Duration, burst: Int?, of owner: StaticString) {
    requirePermitParameters(limit: limit, window: window, burst: burst, of: owner)
    self.cell = ParameterCell(PermitParameters(limit: limit, window: window, burst: burst))
    self.owner = owner
  }

  /// The parameters now, read once (a decision reports them all from one reading).
  package var parameters: PermitParameters { cell.value }
  /// N: the permits per ``window`` (sliding window), or the refill rate per ``window`` (token bucket).
  package var limit: Int { parameters.limit }
  /// T. `.zero`: no limiting.
  package var window: Duration { parameters.window }
  /// B, the bucket's size; `nil` for a strict sliding window.
  package var burst: Int? { parameters.burst }
  /// The most permits one request can take: `burst`, or `limit` for a sliding window.
  package var capacity: Int { parameters.capacity }
  /// `window == .zero`: every request up to the capacity is granted at once, and nothing is kept.
  package var isUnlimited: Bool { parameters.isUnlimited }

  /// `update(limit:per:)` and `update(limit:per:burst:)`: checks the new parameters as the initializers do, and
  /// that they are the same rule (a sliding window stays one, a token bucket stays one: a trap names both);
  /// then they are the door's. The caller changes its store's rule under the store's lock.
  @discardableResult
  package func update(limit: Int, window: Duration, burst: Int?) -> PermitParameters {
    requirePermitParameters(limit: limit, window: window, burst: burst, of: owner)
    let new = PermitParameters(limit: limit, window: window, burst: burst)
    let current = parameters
    if (current.burst == nil) != (burst == nil) {
      fatalError(
        "\(owner).update: cannot change the rule from \(current.ruleName) to \(new.ruleName); make a new limiter")
    }
    cell.value = new
    return new
  }

  /// Takes parameters stored elsewhere (a database's stored rule) as the door's, unchecked.
  package func adopt(_ parameters: PermitParameters) {
    if cell.value != parameters { cell.value = parameters }
  }

  /// The check of `tryAcquire`, `retryAfter` and `decide`: `permits` at least 1.
  package func check(_ permits: Int) {
    requirePositive(permits, "permits", of: owner)
  }

  /// The checks of `reserve` and `acquire`: `permits` at least 1, `maxDelay` (when given) not negative.
  package func check(_ permits: Int, within maxDelay: Duration?) {
    check(permits)
    if let maxDelay { requireNonNegative(maxDelay, "maxDelay", of: owner) }
  }

  /// `decide`'s public form, for every store: the verdict with this rule's quota (the capacity) and window.
  package func report(_ verdict: PermitVerdict) -> RateLimitDecision {
    let parameters = verdict.parameters ?? self.parameters
    return verdict.decision(
      limit: parameters.capacity, window: parameters.window, quotaWindow: parameters.quotaWindow)
  }

  /// The time in which `capacity` permits are allocated (``PermitParameters/quotaWindow``).
  package var quotaWindow: Duration { parameters.quotaWindow }

  /// `acquire`, for every store: checks the request; throws `CancellationError` if the task is cancelled already
  /// (nothing booked); books; throws the store's error for a request beyond the capacity or beyond `maxDelay`
  /// (nothing booked); else waits for the booking's instant, which gives the booking back if the task is
  /// cancelled first.
  package func acquire<Store: PermitStore>(
    _ permits: Int, for key: Store.Key, within maxDelay: Duration?, from store: Store
  ) async throws {
    check(permits, within: maxDelay)
    try Task.checkCancellation()
    switch try await store.book(permits, for: key, within: maxDelay) {
    case .granted: return
    case .booked(let booked): try await store.wait(for: booked)
    case .exceedsCapacity(let capacity):
      throw store.exceedsCapacity(requested: permits, capacity: capacity)
    case .exceedsMaxDelay(let delay):
      throw store.exceedsMaxDelay(delay: delay, maxDelay: maxDelay ?? .zero)
    }
  }
}
