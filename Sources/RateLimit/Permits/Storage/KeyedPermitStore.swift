/// ``KeyedPermits`` behind one lock, with the clock read once an operation: what ``KeyedRateLimiter`` is a façade
/// over, so that the window and the bucket share every line but their rule.
final class KeyedPermitStore<Key: Hashable & Sendable, Rule: PackablePermitRule>: @unchecked Sendable {
  // @unchecked Sendable: `permits` is only read and written inside `lock.withLock`; `clock` is immutable and
  // Sendable.
  private let lock = Lock()
  /// `@exclusivity(unchecked)`: every access is inside `lock.withLock` and none calls back into this store, so
  /// no two accesses overlap; the runtime's own check (two calls into the runtime an operation, a tenth of a
  /// decision's instructions) would only repeat what the lock guarantees.
  @exclusivity(unchecked) private var permits: KeyedPermits<Key, Rule>
  let clock: PermitClock
  /// The waiters, moved back with the clock.
  let waiters: WaiterTimeline

  init(rule: Rule, parameters: PermitParameters, clock: PermitClock) {
    self.permits = KeyedPermits(rule: rule, parameters: parameters)
    self.clock = clock
    self.waiters = WaiterTimeline(clock: clock)
  }

  /// Runs `body` under the lock with the clock read once and taken in: `now` is on the rule's time line
  /// (``PermitBook/onTimeLine(_:)``), where every instant the state keeps is.
  func withNow<Result>(_ body: (inout KeyedPermits<Key, Rule>, Int64) -> Result) -> Result {
    lock.withLock { body(&permits, readNow()) }
  }

  /// ``withNow(_:)`` for a request of `count`: one over the rule's capacity gets `refused(capacity)` without the
  /// clock being read (the capacity is read under the lock: an `update` changes it).
  @inline(__always)
  func withNow<Result>(
    within count: Int, else refused: (Int) -> Result, _ body: (inout KeyedPermits<Key, Rule>, Int64) -> Result
  ) -> Result {
    lock.withLock {
      let capacity = permits.rule.capacity
      guard count <= capacity else { return refused(capacity) }
      return body(&permits, readNow())
    }
  }

  /// Reads the clock, under the lock, and takes a step back in: `now` on the rule's time line.
  @inline(__always)
  private func readNow() -> Int64 {
    let reading = clock.now()
    let jump = permits.read(reading)
    if jump > 0 { waiters.clockWentBack(by: jump) }
    return permits.book.onTimeLine(reading)
  }

  func tryAcquire(_ count: Int, for key: Key) -> Bool {
    withNow(within: count, else: { _ in false }) { permits, now in
      let blockedUntil = permits.blockedUntil(key)
      if now < blockedUntil { return false }
      // No limiting: nothing to keep.
      if permits.book.isUnlimited { return true }
      return permits.update(key, at: now) { book, state in book.tryAcquire(count, at: now, in: &state) }
    }
  }

  func reserve(_ count: Int, for key: Key, within maxDelay: Duration?) -> BookingOutcome {
    withNow(within: count, else: { .exceedsCapacity(capacity: $0) }) { permits, now in
      // The caller's instants are the clock's.
      let reading = permits.book.onClock(now)
      let blockedUntil = permits.blockedUntil(key)
      if permits.book.isUnlimited && now >= blockedUntil {
        return .booked(Booking(time: reading, permits: count, id: 0), now: reading)
      }
      // A request on a fresh key is always booked (it is within the capacity, and nothing waits): a refusal
      // never leaves a fresh key behind.
      let booking = permits.update(key, at: now) { book, state in
        book.reserve(count, within: maxDelay, at: now, blockedUntil: blockedUntil, in: &state)
      }
      if var booking {
        booking.time = permits.book.onClock(booking.time)
        return .booked(booking, now: reading, shift: waiters.currentShift)
      }
      return .exceedsMaxDelay(
        delay: permits.peek(key, at: now) { book, state in
          book.retryAfter(count, at: now, blockedUntil: blockedUntil, in: state)
        })
    }
  }

  func retryAfter(_ count: Int, for key: Key) -> Int64? {
    withNow(within: count, else: { _ in nil }) { permits, now in
      let blockedUntil = permits.blockedUntil(key)
      return permits.peek(key, at: now) { book, state in
        book.retryAfter(count, at: now, blockedUntil: blockedUntil, in: state)
      }
    }
  }

  func cancel(_ booking: Booking, for key: Key) {
    withNow { permits, now in
      // A forgotten key holds no live booking: nothing to give back.
      guard permits.holds(key) else { return }
      // Its instant as it was made, compared with the clock's now, as `RateLimiter` compares them.
      var booking = booking
      booking.time = permits.book.onTimeLine(booking.time)
      let blockedUntil = permits.blockedUntil(key)
      permits.update(key, at: now) { book, state in
        book.cancel(booking, at: now, blockedUntil: blockedUntil, in: &state)
      }
      permits.forgetIfFresh(key, at: now)
    }
  }

  /// ``KeyedRateLimiter/update(limit:per:)``: the rule with `parameters` from now on, every key kept.
  func update(to parameters: PermitParameters) {
    lock.withLock {
      let highestReading = permits.book.highestReading
      permits.update(to: parameters, at: readNow(), highestReading: highestReading)
    }
  }

  /// How many keys' states were brought under an update, ever (tests that an update visits no key at once).
  var statesAdopted: Int { lock.withLock { permits.statesAdopted } }

  /// How many updates some keys have not been brought under yet.
  var pendingUpdates: Int { lock.withLock { permits.pendingUpdates } }

  /// Makes every update visit every key at once (a reference for tests).
  func visitKeysAtUpdate() { lock.withLock { permits.visitsKeysAtUpdate = true } }

  /// The keys not fresh at `now`: sweeps them all first, so it is exact. O(keys).
  /// Keys held now, without sweeping first (tests of what the automatic sweep keeps).
  var heldWithoutSweeping: Int { lock.withLock { permits.count } }

  /// How many keys' instants were moved back one by one, ever.
  var statesMoved: Int { lock.withLock { permits.statesMoved } }

  var count: Int {
    withNow { permits, now in
      permits.sweep(at: now)
      return permits.count
    }
  }
}

/// The ``RateLimiter/Reservation`` canceller of one key.
final class KeyedCanceller<Key: Hashable & Sendable, Rule: PackablePermitRule>: BookingCanceller {
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

extension KeyedRateLimiter {
  /// Keys held now, without sweeping first (tests of what the automatic sweep keeps).
  var heldWithoutSweeping: Int {
    switch store {
    case .window(let store): store.heldWithoutSweeping
    case .bucket(let store): store.heldWithoutSweeping
    }
  }

  /// How many keys' instants were moved back one by one, ever (tests that a step moves no key at once).
  var statesMoved: Int {
    switch store {
    case .window(let store): store.statesMoved
    case .bucket(let store): store.statesMoved
    }
  }

  /// How many keys' states were brought under an update, ever (tests that an update visits no key at once).
  var statesAdopted: Int {
    store.operate {
      $0.statesAdopted
    } bucket: {
      $0.statesAdopted
    }
  }

  /// Makes every update visit every key at once, as before 4.2's O(1) update (a reference for tests).
  func visitKeysAtUpdate() {
    store.operate {
      $0.visitKeysAtUpdate()
    } bucket: {
      $0.visitKeysAtUpdate()
    }
  }

  /// How many updates some keys have not been brought under yet.
  var pendingUpdates: Int {
    store.operate {
      $0.pendingUpdates
    } bucket: {
      $0.pendingUpdates
    }
  }
}
