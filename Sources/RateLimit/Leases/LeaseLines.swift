/// One key's leases and line. A class, so that a lease can point at where its permits are held and give them back
/// without looking the key up.
final class LeaseKey<Key: Hashable & Sendable>: @unchecked Sendable {
  // @unchecked Sendable: every field is touched only under the lock of the one `LeaseLines` that owns it.
  var key: Key?
  /// Permits held by leases now.
  var inUse = 0
  var line = LeaseWaiterLine()
}

/// The rules of leases, for every key of one limiter, under one lock: at most `limit` permits held per key,
/// waiters served first come first served, a key with nothing held and nobody waiting forgotten.
///
/// Every hand-off to a waiter happens inside the call that made its permits fit (a release, a waiter giving up,
/// an update), before that call returns; continuations are resumed after the lock is let go.
///
/// ```
/// limit 2        inUse  line
/// a = try 1      1      —
/// b: acquire 2   1      [b]     (does not fit beside a)
/// try 1          1      [b]     nil: nobody jumps the line
/// a.release()    2      —       b served inside release()
/// ```
final class LeaseLines<Key: Hashable & Sendable>: LeaseOwner, @unchecked Sendable {
  // @unchecked Sendable: `limit`, `keys` and `spares` (and the keys' and waiters' fields) are touched only under
  // `lock`; `clock` is immutable.
  private let lock = Lock()
  private var limit: Int
  private var keys: [Key: LeaseKey<Key>] = [:]
  /// Keys' records that went to rest, kept for the next key (a few), so that a warm key allocates only its lease.
  private var spares: [LeaseKey<Key>] = []
  private let clock: PermitClock
  /// Tests waiting for a line to reach a length (``waitUntilWaiting(atLeast:for:)``).
  private var lineWatchers: [(key: Key, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

  /// The façade's name, for the preconditions' messages.
  private let typeName: StaticString

  /// Checks `limit` (at least 1, a precondition naming the value) on behalf of `typeName`.
  init(limit: Int, clock: some RateLimitClock, typeName: StaticString) {
    requirePositive(limit, "limit", of: typeName)
    self.limit = limit
    self.clock = PermitClock(clock)
    self.typeName = typeName
  }

  var currentLimit: Int { lock.withLock { limit } }
  var count: Int { lock.withLock { keys.count } }
  func inUse(for key: Key) -> Int { lock.withLock { keys[key]?.inUse ?? 0 } }

  func tryAcquire(_ permits: Int, for key: Key) -> Lease? {
    requirePositive(permits, "permits", of: typeName)
    return lock.withLock { grantNow(permits, for: key) }
  }

  func decide(_ permits: Int, for key: Key) -> LeaseDecision {
    requirePositive(permits, "permits", of: typeName)
    return lock.withLock {
      let lease = grantNow(permits, for: key)
      let remaining = keys[key].map { $0.line.isEmpty ? Swift.max(0, limit - $0.inUse) : 0 } ?? limit
      return LeaseDecision(lease: lease, limit: limit, remaining: remaining)
    }
  }

  /// Capacity, then cancellation, then the line (SPEC 4.4, "Order of checks").
  func acquire(_ permits: Int, for key: Key, within maxWait: Duration?) async throws -> Lease {
    requirePositive(permits, "permits", of: typeName)
    if let maxWait { requireNonNegative(maxWait, "maxWait", of: typeName) }
    let start = maxWait == nil ? 0 : clock.now()
    let deadline = maxWait.map { Nanoseconds.adding(start, Nanoseconds.roundingDown($0)) } ?? .max
    let waiter = LeaseWaiter(permits: permits, deadline: deadline, maxWait: maxWait)
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Lease, any Error>) in
        let answer = lock.withLock { join(waiter, for: key, continuation, startedAt: start) }
        if let answer {
          continuation.resume(with: answer)
        } else if deadline != .max {
          // Outside the lock: a custom clock may run the work before `schedule` returns.
          clock.schedule(at: deadline) { self.giveUp(waiter, for: key, because: .deadline) }
        }
      }
    } onCancel: {
      giveUp(waiter, for: key, because: .cancelled)
    }
  }

  func update(limit newLimit: Int) {
    requirePositive(newLimit, "limit", of: typeName)
    let handOffs: [LeaseHandOff] = lock.withLock {
      limit = newLimit
      var handOffs: [LeaseHandOff] = []
      for state in keys.values where !state.line.isEmpty {
        for waiter in state.line.all where waiter.permits > newLimit {
          state.line.remove(waiter)
          handOffs.append(
            end(waiter, .failure(RateLimiterError.exceedsCapacity(requested: waiter.permits, capacity: newLimit))))
        }
        handOffs += serve(state)
        retireIfAtRest(state)
      }
      return handOffs
    }
    for handOff in handOffs { handOff.resume() }
  }

  func release(_ lease: Lease) {
    let handOffs: [LeaseHandOff] = lock.withLock {
      if lease.isReleased { return [] }
      lease.isReleased = true
      let state = unsafeDowncast(lease.holder.unsafelyUnwrapped, to: LeaseKey<Key>.self)
      state.inUse -= lease.permits
      let handOffs = state.line.isEmpty ? [] : serve(state)
      retireIfAtRest(state)
      return handOffs
    }
    for handOff in handOffs { handOff.resume() }
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

  /// A lease now if `permits` fit beside the leases held and nobody waits; nil otherwise.
  private func grantNow(_ permits: Int, for key: Key) -> Lease? {
    if permits > limit { return nil }
    if let state = keys[key] {
      guard state.line.isEmpty, permits <= limit - state.inUse else { return nil }
      state.inUse += permits
      return Lease(permits: permits, owner: self, holder: state)
    }
    let state = spares.popLast() ?? LeaseKey()
    state.key = key
    state.inUse = permits
    keys[key] = state
    return Lease(permits: permits, owner: self, holder: state)
  }

  /// `acquire`'s checks and, when it must wait, its place at the end of the line. Returns the answer when it
  /// needs no waiting.
  private func join(
    _ waiter: LeaseWaiter, for key: Key, _ continuation: CheckedContinuation<Lease, any Error>, startedAt now: Int64
  ) -> Result<Lease, any Error>? {
    if waiter.permits > limit {
      return .failure(RateLimiterError.exceedsCapacity(requested: waiter.permits, capacity: limit))
    }
    if case .cancelledEarly = waiter.state { return .failure(CancellationError()) }
    if let lease = grantNow(waiter.permits, for: key) { return .success(lease) }
    // Deadlines are exclusive: `maxWait: .zero` is `tryAcquire` that throws.
    if waiter.deadline <= now { return .failure(RateLimiterError.waitedTooLong(maxWait: waiter.maxWait ?? .zero)) }
    // `grantNow` made the key's record if it had none, so it exists.
    let line = keys[key].unsafelyUnwrapped
    line.line.append(waiter)
    waiter.state = .waiting(continuation)
    if !lineWatchers.isEmpty { wakeWatchers(of: key, waiting: line.line.count) }
    return nil
  }

  private enum GivingUp { case cancelled, deadline }

  /// A waiter's task was cancelled, or its `maxWait` ended: it leaves the line, taking nothing, and those behind
  /// it move up at once.
  private func giveUp(_ waiter: LeaseWaiter, for key: Key, because reason: GivingUp) {
    let handOffs: [LeaseHandOff] = lock.withLock {
      switch waiter.state {
      case .new:
        if reason == .cancelled { waiter.state = .cancelledEarly }
        return []
      case .cancelledEarly, .done:
        return []
      case .waiting:
        guard let state = keys[key] else { return [] }
        state.line.remove(waiter)
        let error: any Error =
          reason == .cancelled
          ? CancellationError() : RateLimiterError.waitedTooLong(maxWait: waiter.maxWait ?? .zero)
        var handOffs = [end(waiter, .failure(error))]
        handOffs += serve(state)
        retireIfAtRest(state)
        return handOffs
      }
    }
    for handOff in handOffs { handOff.resume() }
  }

  /// Serves the line from its head: first every waiter whose deadline has come gives up (a waiter is never
  /// served at its own deadline), then waiters are served while the head's permits fit.
  private func serve(_ state: LeaseKey<Key>) -> [LeaseHandOff] {
    var handOffs: [LeaseHandOff] = []
    if state.line.withDeadline > 0 {
      for waiter in state.line.due(at: clock.now()) {
        state.line.remove(waiter)
        handOffs.append(end(waiter, .failure(RateLimiterError.waitedTooLong(maxWait: waiter.maxWait ?? .zero))))
      }
    }
    while let head = state.line.first, head.permits <= limit - state.inUse {
      state.line.remove(head)
      state.inUse += head.permits
      handOffs.append(end(head, .success(Lease(permits: head.permits, owner: self, holder: state))))
    }
    return handOffs
  }

  private func end(_ waiter: LeaseWaiter, _ outcome: Result<Lease, any Error>) -> LeaseHandOff {
    guard case .waiting(let continuation) = waiter.state else { preconditionFailure("a waiter ended twice") }
    waiter.state = .done
    return LeaseHandOff(continuation: continuation, outcome: outcome)
  }

  /// Forgets a key with nothing held and nobody waiting.
  private func retireIfAtRest(_ state: LeaseKey<Key>) {
    guard state.inUse == 0, state.line.isEmpty, let key = state.key else { return }
    keys[key] = nil
    state.key = nil
    if spares.count < 4 { spares.append(state) }
  }
}
