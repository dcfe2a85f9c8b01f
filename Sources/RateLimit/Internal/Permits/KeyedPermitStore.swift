/// Many limiters' permits, one small state per key (a ``TokenBucket/State`` or a ``SlidingWindow``'s log), in one
/// dictionary behind one lock. A key whose state is back to fresh is forgotten: every so many operations (as many
/// as there are keys, so O(1) amortized per operation) a sweep drops the fresh ones and shrinks the storage, so
/// memory follows the keys active within the last window. Forgetting is invisible: a missing key is a fresh one.
final class KeyedPermitStore<Key: Hashable & Sendable, Rule: PermitRule>: @unchecked Sendable {
  // @unchecked Sendable: `book`, `states` and `operationsSinceSweep` are only read and written inside
  // `lock.withLock`; `clock` is immutable and Sendable.
  private let lock = Lock()
  private var book: PermitBook<Rule>
  private var states: [Key: Rule.State] = [:]
  private var operationsSinceSweep = 0
  /// The state of a key never used (or forgotten).
  private let fresh: Rule.State
  let clock: PermitClock

  init(rule: Rule, isUnlimited: Bool, clock: PermitClock) {
    self.book = PermitBook(rule: rule, isUnlimited: isUnlimited)
    self.fresh = rule.fresh
    self.clock = clock
  }

  var capacity: Int { book.rule.capacity }

  /// Runs `body` under the lock with the clock read once; a step back is taken in by every key, and the sweep
  /// runs when it is due.
  private func withNow<Result>(_ body: (Int64) -> Result) -> Result {
    lock.withLock {
      let now = clock.now()
      let jump = book.read(now)
      if jump > 0 {
        for key in states.keys { book.rule.clockWentBack(by: jump, in: &states[key]!) }
      }
      operationsSinceSweep += 1
      if operationsSinceSweep >= Swift.max(states.count, 16) { sweep(at: now) }
      return body(now)
    }
  }

  /// Forgets every key that is fresh at `now`, and gives back storage the dictionary no longer needs.
  private func sweep(at now: Int64) {
    operationsSinceSweep = 0
    var fresh: [Key] = []
    for key in states.keys where book.rule.isFresh(&states[key]!, at: now) { fresh.append(key) }
    for key in fresh { states[key] = nil }
    if states.capacity > 4 * Swift.max(states.count, 8) {
      var shrunk = [Key: Rule.State](minimumCapacity: states.count)
      for (key, state) in states { shrunk[key] = state }
      states = shrunk
    }
  }

  func tryAcquire(_ permits: Int, for key: Key) -> Bool {
    guard permits <= capacity else { return false }
    return withNow { now in
      if book.isUnlimited { return true }
      // A booking leaves the key not fresh, and a refusal comes only from a state that is not: no check needed.
      return book.tryAcquire(permits, at: now, in: &states[key, default: fresh])
    }
  }

  func reserve(_ permits: Int, for key: Key, within maxDelay: Duration?) -> BookingOutcome {
    guard permits <= capacity else { return .exceedsCapacity(capacity: capacity) }
    return withNow { now in
      var unlimited = fresh
      if book.isUnlimited, let booking = book.reserve(permits, within: maxDelay, at: now, in: &unlimited) {
        return .booked(booking, now: now)
      }
      if let booking = book.reserve(permits, within: maxDelay, at: now, in: &states[key, default: fresh]) {
        return .booked(booking, now: now)
      }
      return .exceedsMaxDelay(delay: book.retryAfter(permits, at: now, in: states[key] ?? fresh))
    }
  }

  func retryAfter(_ permits: Int, for key: Key) -> Int64? {
    guard permits <= capacity else { return nil }
    return withNow { now in book.retryAfter(permits, at: now, in: states[key] ?? fresh) }
  }

  func cancel(_ booking: Booking, for key: Key) {
    withNow { now in
      // A forgotten key holds no live booking: nothing to give back.
      guard states[key] != nil else { return }
      book.cancel(booking, at: now, in: &states[key]!)
      if book.rule.isFresh(&states[key]!, at: now) { states[key] = nil }
    }
  }

  /// The keys not fresh at `now`: sweeps them all first, so it is exact. O(keys).
  var count: Int {
    lock.withLock {
      sweep(at: clock.now())
      return states.count
    }
  }
}

/// The ``RateLimiter/Reservation`` canceller of one key.
final class KeyedCanceller<Key: Hashable & Sendable, Rule: PermitRule>: BookingCanceller {
  let store: KeyedPermitStore<Key, Rule>
  let key: Key

  init(store: KeyedPermitStore<Key, Rule>, key: Key) {
    self.store = store
    self.key = key
  }

  func cancel(_ booking: Booking) {
    store.cancel(booking, for: key)
  }
}
