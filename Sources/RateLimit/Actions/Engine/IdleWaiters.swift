/// The tasks suspended in `waitUntilIdle()`, each under an id so that its cancellation handler can find it in
/// O(1), however many wait; and the observer a keyed container sets to learn that the limiter became idle.
/// Empty (and allocating nothing) unless someone waits.
@usableFromInline
struct IdleWaiters: Sendable {
  @usableFromInline typealias Continuation = CheckedContinuation<Void, Never>

  private var waiting: [UInt64: Continuation] = [:]
  private var lastID: UInt64 = 0
  /// Called (outside the lock) each time the limiter becomes idle; set by ``Keyed``.
  var observer: (@Sendable () -> Void)?

  @usableFromInline
  init() {}

  /// How many tasks wait (for tests).
  var count: Int { waiting.count }

  /// A fresh id for a waiter.
  mutating func nextID() -> UInt64 {
    lastID &+= 1
    return lastID
  }

  /// Adds a waiter.
  mutating func add(_ id: UInt64, _ continuation: Continuation) {
    waiting[id] = continuation
  }

  /// Removes the waiter `id` (its task was cancelled) and returns it, if it is still here.
  ///
  /// - Complexity: O(1).
  mutating func remove(_ id: UInt64) -> Continuation? {
    waiting.removeValue(forKey: id)
  }

  /// Removes every waiter, to be resumed outside the lock, with the observer to call.
  @usableFromInline
  mutating func takeAll() -> IdleNotice {
    if waiting.isEmpty { return IdleNotice(continuations: [], observer: observer) }
    defer { waiting = [:] }
    return IdleNotice(continuations: Array(waiting.values), observer: observer)
  }
}

/// What becoming idle leaves to do outside the lock: resume the waiters, tell the observer.
@usableFromInline
struct IdleNotice: Sendable {
  var continuations: [IdleWaiters.Continuation]
  var observer: (@Sendable () -> Void)?

  /// Nothing to do: the limiter is not idle.
  @usableFromInline static var none: IdleNotice { IdleNotice(continuations: [], observer: nil) }

  /// Resumes every waiter, then tells the observer. Call outside the lock.
  @usableFromInline
  func deliver() {
    for continuation in continuations { continuation.resume() }
    observer?()
  }
}
