/// Where one key's leases are held: the permits in use and the line. What a release needs, without the key's
/// type, so that a release is the same short code whatever the key.
class LeaseHolding: @unchecked Sendable {
  // @unchecked Sendable: every field is touched only under the lock of the one `LeaseLines` that owns it
  // (`@exclusivity(unchecked)`: so no access overlaps another, and none calls back into the limiter).
  /// Permits held by leases now.
  @exclusivity(unchecked) final var inUse = 0
  @exclusivity(unchecked) final var line = LeaseWaiterLine()
}

/// One key's record: a class, so that a lease points at where its permits are held and gives them back without
/// looking the key up.
final class LeaseKey<Key: Hashable & Sendable>: LeaseHolding, @unchecked Sendable {
  // @unchecked Sendable: as `LeaseHolding`.
  @exclusivity(unchecked) var key: Key?
}

/// What a lease operation leaves to do once the lock is let go: resume the waiters it served or turned away, and
/// let go of the keys it forgot (a key's deinit may release a lease of the same limiter, which takes the lock).
/// Generic, so that it stays a plain value for the specialized keys (an `Any` in it cost ~300 instructions a
/// release in value witnesses).
struct LeaseAftermath<Key> {
  var handOffs: [LeaseHandOff] = []
  /// The key forgotten, if one was; `others`, when an update forgets several.
  private var forgotten: Key?
  private var others: [Key] = []

  mutating func forget(_ key: Key) {
    if forgotten == nil { forgotten = key } else { others.append(key) }
  }

  /// Resumes the waiters; the keys go when the aftermath does, after the lock.
  func resume() {
    for handOff in handOffs { handOff.resume() }
  }
}

/// The lock and the limit of a limiter's leases, and the release of a lease: the one piece of ``LeaseLines`` that
/// is not generic, so that a release through ``LeaseOwner`` runs specialized code whatever the key (the generic
/// body looked type metadata up on every call: 2.3 times the instructions).
class LeaseLock: LeaseOwner, @unchecked Sendable {
  // @unchecked Sendable: `limit` is touched only under `lock`.
  final let lock = Lock()
  @exclusivity(unchecked) final var limit: Int

  init(limit: Int) { self.limit = limit }

  final func release(_ lease: Lease) {
    let unsettled: LeaseHolding? = lock.withLock {
      if lease.isReleased { return nil }
      lease.isReleased = true
      let state = lease.holder.unsafelyUnwrapped
      state.inUse -= lease.permits
      // Nobody to serve and the key still in use (the common release): nothing else to do.
      return state.inUse != 0 && state.line.isEmpty ? nil : state
    }
    if let unsettled { settle(unsettled) }
  }

  /// After permits came back, under the lock again: serves `state`'s line and forgets its key if it is at rest.
  /// Safe on a record that changed hands in between (forgotten, reused for another key): it only serves whatever
  /// line the record holds now and forgets its key only if that key is at rest.
  func settle(_ state: LeaseHolding) { preconditionFailure("LeaseLines overrides settle") }
}

/// The rules of leases, for every key of one limiter, under one lock: at most `limit` permits held per key,
/// waiters served first come first served, a key with nothing held and nobody waiting forgotten.
///
/// Every hand-off to a waiter happens inside the call that made its permits fit (a release, a waiter giving up,
/// an update), before that call returns; continuations are resumed after the lock is let go, and so are the keys
/// forgotten (`LeaseAftermath`).
///
/// ```
/// limit 2        inUse  line
/// a = try 1      1      —
/// b: acquire 2   1      [b]     (does not fit beside a)
/// try 1          1      [b]     nil: nobody jumps the line
/// a.release()    2      —       b served inside release()
/// ```
final class LeaseLines<Key: Hashable & Sendable>: LeaseLock, @unchecked Sendable {
  // @unchecked Sendable: `keys`, `spares` and `lineWatchers` (and the keys' and waiters' fields) are touched only
  // under `lock` (`@exclusivity(unchecked)`: no access overlaps another); the rest is immutable.
  @exclusivity(unchecked) private var keys: [Key: LeaseKey<Key>] = [:]
  /// Keys' records that went to rest, kept for the next key (a few), so that a warm key allocates only its lease.
  @exclusivity(unchecked) private var spares: [LeaseKey<Key>] = []
  private let clock: PermitClock
  /// Tests waiting for a line to reach a length (``waitUntilWaiting(atLeast:for:)``).
  @exclusivity(unchecked) private var lineWatchers:
    [(key: Key, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

  /// The façade's name, for the preconditions' messages.
  private let typeName: StaticString

  /// Checks `limit` (at least 1, a precondition naming the value) on behalf of `typeName`.
  init(limit: Int, clock: some RateLimitClock, typeName: StaticString) {
    requirePositive(limit, "limit", of: typeName)
    self.clock = PermitClock(clock)
    self.typeName = typeName
    super.init(limit: limit)
  }

  var currentLimit: Int { lock.withLock { limit } }
  var count: Int { lock.withLock { keys.count } }
  func inUse(for key: Key) -> Int { lock.withLock { keys[key]?.inUse ?? 0 } }

  func tryAcquire(_ permits: Int, for key: Key) -> Lease? {
    requirePositive(permits, "permits", of: typeName)
    var aftermath: LeaseAftermath<Key>?
    let lease = lock.withLock { grantNow(permits, for: key, &aftermath).lease }
    aftermath?.resume()
    return lease
  }

  func decide(_ permits: Int, for key: Key) -> LeaseDecision {
    requirePositive(permits, "permits", of: typeName)
    var aftermath: LeaseAftermath<Key>?
    let decision = lock.withLock {
      let (lease, state) = grantNow(permits, for: key, &aftermath)
      let remaining = state.map { $0.line.isEmpty ? Swift.max(0, limit - $0.inUse) : 0 } ?? limit
      return LeaseDecision(lease: lease, limit: limit, remaining: remaining)
    }
    aftermath?.resume()
    return decision
  }

  /// Capacity, then cancellation, then the line (SPEC 4.4, "Order of checks").
  func acquire(_ permits: Int, for key: Key, within maxWait: Duration?) async throws -> Lease {
    requirePositive(permits, "permits", of: typeName)
    if let maxWait { requireNonNegative(maxWait, "maxWait", of: typeName) }
    let start = maxWait == nil ? 0 : clock.now()
    // Rounded up, as the clock's readings are: a fraction of a nanosecond is not `.zero`.
    let deadline = maxWait.map { Nanoseconds.adding(start, Nanoseconds.roundingUp($0)) } ?? .max
    let waiter = LeaseWaiter(permits: permits, deadline: deadline, maxWait: maxWait)
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Lease, any Error>) in
        var aftermath: LeaseAftermath<Key>?
        let answer = lock.withLock { join(waiter, for: key, continuation, startedAt: start, &aftermath) }
        aftermath?.resume()
        if let answer {
          continuation.resume(with: answer)
        } else if deadline != .max {
          // Outside the lock: a custom clock may run the work before `schedule` returns. Weak: a waiter served
          // long before its deadline keeps nothing alive on the clock (neither its key nor the limiter).
          clock.schedule(at: deadline) { [weak self, weak waiter] in
            if let self, let waiter { self.giveUp(waiter, because: .deadline) }
          }
        }
      }
    } onCancel: {
      giveUp(waiter, because: .cancelled)
    }
  }

  func update(limit newLimit: Int) {
    requirePositive(newLimit, "limit", of: typeName)
    let aftermath: LeaseAftermath<Key> = lock.withLock {
      limit = newLimit
      var aftermath = LeaseAftermath<Key>()
      for state in keys.values where !state.line.isEmpty {
        for waiter in state.line.all where waiter.permits > newLimit {
          state.line.remove(waiter)
          aftermath.handOffs.append(
            end(waiter, .failure(RateLimiterError.exceedsCapacity(requested: waiter.permits, capacity: newLimit))))
        }
        serve(state, &aftermath)
        retireIfAtRest(state, &aftermath)
      }
      return aftermath
    }
    aftermath.resume()
  }

  // Specialized for the keys the façades use most (and `ConcurrencyLimiter`'s `Int`): `LeaseLock.release` calls
  // it through the vtable, which runs the generic body otherwise (a key coming to rest cost 4 times more).
  @_specialize(where Key == String)
  @_specialize(where Key == Int)
  override func settle(_ state: LeaseHolding) {
    let aftermath: LeaseAftermath<Key> = lock.withLock {
      let state = unsafeDowncast(state, to: LeaseKey<Key>.self)
      var aftermath = LeaseAftermath<Key>()
      if !state.line.isEmpty { serve(state, &aftermath) }
      retireIfAtRest(state, &aftermath)
      return aftermath
    }
    aftermath.resume()
  }

  /// Returns once at least `count` waiters wait in `key`'s line: for tests, which must know that a task has
  /// joined the line before they act, without polling.
  func waitUntilWaiting(atLeast count: Int, for key: Key) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let done = lock.withLock {
        if (keys[key]?.line.count ?? 0) >= count { return true }
        lineWatchers.append((key, count, continuation))
        return false
      }
      if done { continuation.resume() }
    }
  }

  // MARK: - Under the lock

  private func wakeWatchers(of key: Key, waiting: Int) {
    lineWatchers.removeAll { watcher in
      guard watcher.key == key, watcher.count <= waiting else { return false }
      watcher.continuation.resume()
      return true
    }
  }

  /// A lease now if `permits` fit beside the leases held and nobody waits; nil otherwise. Waiters whose deadline
  /// has come are gone first (they hold nobody back at their deadline instant, even before their timer runs).
  /// Returns the key's record too, if it has one. `aftermath` is made only when something is left to do.
  private func grantNow(
    _ permits: Int, for key: Key, _ aftermath: inout LeaseAftermath<Key>?
  ) -> (lease: Lease?, state: LeaseKey<Key>?) {
    guard let state = keys[key] else {
      if permits > limit { return (nil, nil) }
      let state = spares.popLast() ?? LeaseKey()
      state.key = key
      state.inUse = permits
      keys[key] = state
      return (Lease(permits: permits, owner: self, holder: state), state)
    }
    if state.line.withDeadline > 0 {
      var made = aftermath ?? LeaseAftermath<Key>()
      serve(state, &made)
      aftermath = made
    }
    guard permits <= limit, state.line.isEmpty, permits <= limit - state.inUse else { return (nil, state) }
    state.inUse += permits
    return (Lease(permits: permits, owner: self, holder: state), state)
  }

  /// `acquire`'s checks and, when it must wait, its place at the end of the line. Returns the answer when it
  /// needs no waiting.
  private func join(
    _ waiter: LeaseWaiter, for key: Key, _ continuation: CheckedContinuation<Lease, any Error>,
    startedAt now: Int64, _ aftermath: inout LeaseAftermath<Key>?
  ) -> Result<Lease, any Error>? {
    if waiter.permits > limit {
      return .failure(RateLimiterError.exceedsCapacity(requested: waiter.permits, capacity: limit))
    }
    if case .cancelledEarly = waiter.state { return .failure(CancellationError()) }
    let (lease, record) = grantNow(waiter.permits, for: key, &aftermath)
    if let lease { return .success(lease) }
    // Deadlines are exclusive: `maxWait: .zero` is `tryAcquire` that throws.
    if waiter.deadline <= now { return .failure(RateLimiterError.waitedTooLong(maxWait: waiter.maxWait ?? .zero)) }
    // Refused with permits within the limit: the key has a record.
    let state = record.unsafelyUnwrapped
    state.line.append(waiter)
    waiter.state = .waiting(continuation)
    waiter.holder = state
    if !lineWatchers.isEmpty { wakeWatchers(of: key, waiting: state.line.count) }
    return nil
  }

  private enum GivingUp { case cancelled, deadline }

  /// A waiter's task was cancelled, or its `maxWait` ended: it leaves the line, taking nothing, and those behind
  /// it move up at once.
  private func giveUp(_ waiter: LeaseWaiter, because reason: GivingUp) {
    let aftermath: LeaseAftermath<Key> = lock.withLock {
      var aftermath = LeaseAftermath<Key>()
      switch waiter.state {
      case .new:
        if reason == .cancelled { waiter.state = .cancelledEarly }
      case .cancelledEarly, .done:
        break
      case .waiting:
        let state = unsafeDowncast(waiter.holder.unsafelyUnwrapped, to: LeaseKey<Key>.self)
        state.line.remove(waiter)
        let error: any Error =
          reason == .cancelled
          ? CancellationError() : RateLimiterError.waitedTooLong(maxWait: waiter.maxWait ?? .zero)
        aftermath.handOffs.append(end(waiter, .failure(error)))
        serve(state, &aftermath)
        retireIfAtRest(state, &aftermath)
      }
      return aftermath
    }
    aftermath.resume()
  }

  /// Serves the line from its head: first every waiter whose deadline has come gives up (a waiter is never
  /// served at its own deadline), then waiters are served while the head's permits fit.
  private func serve(_ state: LeaseKey<Key>, _ aftermath: inout LeaseAftermath<Key>) {
    if state.line.withDeadline > 0 {
      for waiter in state.line.due(at: clock.now()) {
        state.line.remove(waiter)
        aftermath.handOffs.append(
          end(waiter, .failure(RateLimiterError.waitedTooLong(maxWait: waiter.maxWait ?? .zero))))
      }
    }
    while let head = state.line.first, head.permits <= limit - state.inUse {
      state.line.remove(head)
      state.inUse += head.permits
      aftermath.handOffs.append(end(head, .success(Lease(permits: head.permits, owner: self, holder: state))))
    }
  }

  private func end(_ waiter: LeaseWaiter, _ outcome: Result<Lease, any Error>) -> LeaseHandOff {
    guard case .waiting(let continuation) = waiter.state else { preconditionFailure("a waiter ended twice") }
    waiter.state = .done
    waiter.holder = nil
    return LeaseHandOff(continuation: continuation, outcome: outcome)
  }

  /// Forgets a key with nothing held and nobody waiting. The key itself is let go after the lock.
  private func retireIfAtRest(_ state: LeaseKey<Key>, _ aftermath: inout LeaseAftermath<Key>) {
    guard state.inUse == 0, state.line.isEmpty, let key = state.key else { return }
    aftermath.forget(key)
    keys[key] = nil
    state.key = nil
    if spares.count < 4 { spares.append(state) }
  }
}
