/// The limiters of a ``Keyed`` container, one per key, behind one lock.
///
/// The release protocol, which loses no call: every operation that reaches a key's limiter first counts itself
/// in (`users += 1`) under the lock, and counts itself out after. A limiter is released (taken out of the
/// dictionary, then invalidated outside the lock) only while no operation is counted in and it is at rest; an
/// operation that comes later finds no entry and goes to a new limiter. So a call never reaches a released
/// limiter, and calls made one after another reach their key's limiters in that order.
///
/// The path of a call to a held limiter is `@inlinable`, so that it is specialized in the caller for the concrete
/// key and limiter types (and calls the limiter directly, not through its protocol); making, observing, sweeping
/// and releasing are not.
@usableFromInline
final class KeyedLimiters<Key: Hashable & Sendable, Limiter: ActionLimiter>: @unchecked Sendable {
  // @unchecked Sendable: `entries`, `isInvalidated` and `operationsSinceSweep` are only read and written inside
  // `lock.withLock`; `make` is immutable and Sendable. Limiters are called outside the lock, but for `isAtRest`,
  // which library limiters answer under their own lock (lock order: this one, then the limiter's).
  @usableFromInline
  struct Entry: Sendable {
    @usableFromInline let limiter: Limiter
    /// Operations counted in on this limiter and not yet out.
    @usableFromInline var users = 0
    /// Its place in the sweep's queue: a queued key whose ticket is not its limiter's is a stale copy.
    @usableFromInline let ticket: UInt64

    @usableFromInline
    init(limiter: Limiter, users: Int, ticket: UInt64) {
      self.limiter = limiter
      self.users = users
      self.ticket = ticket
    }
  }

  /// A key in the sweep's queue, with the ticket of the limiter it was queued for.
  struct Queued: Sendable {
    let key: Key
    let ticket: UInt64
  }

  @usableFromInline let lock = Lock()
  private let make: @Sendable (Key) -> Limiter
  @usableFromInline var entries: [Key: Entry] = [:]
  @usableFromInline var isInvalidated = false
  @usableFromInline var operationsSinceSweep = 0
  /// Every limiter held, oldest first, for the sweep that examines a few at a time (and stale copies of keys
  /// whose limiter was released since, dropped when they come up).
  private var sweepQueue = KeyQueue<Queued>()
  private var nextTicket: UInt64 = 0
  /// The most limiters one operation's sweep examined (tests that no operation stalls).
  var mostExaminedAtOnce = 0

  init(_ make: @escaping @Sendable (Key) -> Limiter) {
    self.make = make
  }

  // MARK: Reaching a key's limiter

  /// Runs `body` on `key`'s limiter, counted in while `body` runs outside the lock. With `creating`, a limiter
  /// is made if there is none (outside the lock), unless the container is invalidated. `nil` if no limiter.
  /// With `mayRest`, the limiter is released if `body` left it at rest (`flush`, `cancel`; a call never does: it
  /// opens a window or holds a value, and its limiter comes to rest later, by time or when its run returns).
  @inlinable
  func withLimiter<Result>(
    _ key: Key, creating: Bool, mayRest: Bool = true, _ body: (Limiter) -> Result
  ) -> Result? {
    let (existing, sweepIsDue): (Limiter?, Bool) = lock.withLock {
      operationsSinceSweep += 1
      // New keys are what memory grows with: each examines two held limiters (`makeLimiter`). Without them,
      // every 4,096 operations examine 16 more (an examination is a limiter's lock and its generic `isAtRest`:
      // more often, it was a third of a call's cost), never a batch that grows with the limiters held.
      let sweepIsDue = operationsSinceSweep >= 4_096
      if creating && isInvalidated { return (nil, sweepIsDue) }
      guard let index = entries.index(forKey: key) else { return (nil, sweepIsDue) }
      entries.values[index].users += 1
      return (entries.values[index].limiter, sweepIsDue)
    }
    if sweepIsDue { sweepNow() }
    guard let limiter = existing ?? (creating ? makeLimiter(for: key) : nil) else { return nil }
    let result = body(limiter)
    let isUnused: Bool = lock.withLock {
      guard let index = entries.index(forKey: key), entries.values[index].limiter === limiter else { return false }
      entries.values[index].users -= 1
      return entries.values[index].users == 0
    }
    if mayRest && isUnused { releaseIfAtRest(key, limiter) }
    return result
  }

  /// The slow path of a call: makes `key`'s limiter outside the lock (the user's code), then holds it, counted
  /// in, unless another thread made one meanwhile (then that one is used) or the container was invalidated.
  @usableFromInline
  func makeLimiter(for key: Key) -> Limiter? {
    guard lock.withLock({ !isInvalidated }) else { return nil }
    let made = make(key)
    let (chosen, isNew, free): (Limiter?, Bool, [Limiter]) = lock.withLock {
      if isInvalidated { return (nil, false, []) }
      if entries[key] != nil {
        // Another thread made one meanwhile: use it.
        entries[key]!.users += 1
        return (entries[key]!.limiter, false, [])
      }
      nextTicket &+= 1
      entries[key] = Entry(limiter: made, users: 1, ticket: nextTicket)
      sweepQueue.append(Queued(key: key, ticket: nextTicket))
      // Two examined for every limiter made: forgetting outpaces arrivals, whatever the traffic.
      return (made, true, sweepSteps(2))
    }
    release(free)
    if !isNew { made.invalidate() }
    if isNew, let observable = chosen as? any IdleObservable { observe(observable, key: key) }
    return chosen
  }

  /// Releases `key`'s limiter if it is still `limiter`, unused and at rest.
  @usableFromInline
  func releaseIfAtRest(_ key: Key, _ limiter: Limiter) {
    let free: Limiter? = lock.withLock {
      guard entries[key]?.limiter === limiter else { return nil }
      return takeIfAtRest(key)
    }
    if let free { release([free]) }
  }

  /// The periodic sweep: examines the next 16 limiters of the queue, and releases those at rest.
  @usableFromInline
  func sweepNow() {
    release(
      lock.withLock {
        operationsSinceSweep = 0
        return sweepSteps(16)
      })
  }

  /// Tells this container each time `limiter` becomes idle, so that it is released when its last run returns.
  private func observe(_ limiter: any IdleObservable, key: Key) {
    let container = WeakKeyedLimiters(self)
    let identity = ObjectIdentifier(limiter as AnyObject)
    limiter.observeIdle { container.object?.limiterBecameIdle(key, identity) }
  }

  private func limiterBecameIdle(_ key: Key, _ identity: ObjectIdentifier) {
    let free: Limiter? = lock.withLock {
      guard let entry = entries[key], ObjectIdentifier(entry.limiter) == identity else { return nil }
      return takeIfAtRest(key)
    }
    if let free { release([free]) }
  }

  /// Takes `key`'s limiter out if no operation is on it and it is at rest. Under the lock.
  private func takeIfAtRest(_ key: Key) -> Limiter? {
    guard let entry = entries[key], entry.users == 0, entry.limiter.isAtRest else { return nil }
    entries[key] = nil
    return entry.limiter
  }

  /// Examines the next `steps` limiters of the queue: takes out each at rest, sends the others to the back. A
  /// limiter at rest is taken out within a round of the queue, so the limiters held stay proportional to those
  /// active (SPEC 4.0.1: no operation sweeps an unbounded batch). Under the lock.
  private func sweepSteps(_ steps: Int) -> [Limiter] {
    var free: [Limiter] = []
    var examined = 0
    while examined < steps, let queued = sweepQueue.popFirst() {
      // A stale copy: its limiter was released since (and the key may hold a newer one, queued again).
      guard let index = entries.index(forKey: queued.key), entries.values[index].ticket == queued.ticket else {
        continue
      }
      examined += 1
      let entry = entries.values[index]
      if entry.users == 0, entry.limiter.isAtRest {
        entries.remove(at: index)
        free.append(entry.limiter)
      } else {
        sweepQueue.append(queued)
      }
    }
    mostExaminedAtOnce = Swift.max(mostExaminedAtOnce, examined)
    if entries.capacity > 8 * Swift.max(entries.count, 64) { shrinkEntries() }
    return free
  }

  /// Takes out every limiter at rest (when `count` is read): O(limiters).
  private func sweep() -> [Limiter] {
    var free: [Limiter] = []
    for key in Array(entries.keys) {
      if let limiter = takeIfAtRest(key) { free.append(limiter) }
    }
    if entries.capacity > 4 * Swift.max(entries.count, 8) { shrinkEntries() }
    return free
  }

  private func shrinkEntries() {
    var shrunk = [Key: Entry](minimumCapacity: entries.count)
    for (key, entry) in entries { shrunk[key] = entry }
    entries = shrunk
  }

  /// Invalidates and lets go of limiters taken out: outside the lock.
  private func release(_ limiters: [Limiter]) {
    for limiter in limiters { limiter.invalidate() }
  }

  // MARK: Every key

  /// Runs `body` on every limiter held, each counted in while `body` runs outside the lock.
  func forEachLimiter(_ body: (Limiter) -> Void) {
    let held: [(Key, Limiter)] = lock.withLock {
      Array(entries.keys).map { key in
        entries[key]!.users += 1
        return (key, entries[key]!.limiter)
      }
    }
    for (_, limiter) in held { body(limiter) }
    let free: [Limiter] = lock.withLock {
      held.compactMap { key, limiter in
        guard entries[key]?.limiter === limiter else { return nil }
        entries[key]!.users -= 1
        return takeIfAtRest(key)
      }
    }
    release(free)
  }

  /// `invalidate()`: every held limiter is invalidated (their flushed runs still start); later calls are ignored.
  /// The limiters stay held until they are at rest, so that `count` and `waitUntilIdle()` see their runs.
  func invalidate() {
    let wasValid = lock.withLock {
      defer { isInvalidated = true }
      return !isInvalidated
    }
    guard wasValid else { return }
    forEachLimiter { $0.invalidate() }
  }

  /// The limiters not at rest: every limiter at rest is released first.
  var count: Int {
    let (free, count): ([Limiter], Int) = lock.withLock {
      let free = sweep()
      return (free, entries.count)
    }
    release(free)
    return count
  }

  /// Every limiter held now.
  var held: [Limiter] {
    lock.withLock { entries.values.map(\.limiter) }
  }
}

/// A weak reference to a ``KeyedLimiters`` that an idle observer may capture: a limiter never keeps its
/// container alive.
struct WeakKeyedLimiters<Key: Hashable & Sendable, Limiter: ActionLimiter>: @unchecked Sendable {
  // @unchecked Sendable: KeyedLimiters is thread-safe (see its comment); a weak reference to one may be shared.
  weak var object: KeyedLimiters<Key, Limiter>?

  init(_ object: KeyedLimiters<Key, Limiter>) {
    self.object = object
  }
}

extension KeyedLimiters {
  /// Limiters held now, without sweeping first (tests of what the automatic sweep keeps).
  var heldWithoutSweeping: Int { lock.withLock { entries.count } }
}

extension Keyed {
  /// Limiters held now, without sweeping first (tests of what the automatic sweep keeps).
  var heldWithoutSweeping: Int { limiters.heldWithoutSweeping }
}
