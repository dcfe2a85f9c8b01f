/// The tasks suspended in `waitUntilIdle()`, each under an id so that its cancellation handler can find it.
/// Empty (and allocating nothing) unless someone waits.
@usableFromInline
struct IdleWaiters: Sendable {
  @usableFromInline typealias Continuation = CheckedContinuation<Void, Never>

  private var waiting: [(id: UInt64, continuation: Continuation)] = []
  private var lastID: UInt64 = 0

  @usableFromInline
  init() {}

  /// A fresh id for a waiter.
  mutating func nextID() -> UInt64 {
    lastID &+= 1
    return lastID
  }

  /// Adds a waiter.
  mutating func add(_ id: UInt64, _ continuation: Continuation) {
    waiting.append((id, continuation))
  }

  /// Removes the waiter `id` (its task was cancelled) and returns it, if it is still here.
  mutating func remove(_ id: UInt64) -> Continuation? {
    guard let index = waiting.firstIndex(where: { $0.id == id }) else { return nil }
    return waiting.remove(at: index).continuation
  }

  /// Removes every waiter, to be resumed outside the lock.
  mutating func takeAll() -> [Continuation] {
    defer { waiting = [] }
    return waiting.map(\.continuation)
  }
}

extension [IdleWaiters.Continuation] {
  /// Resumes every waiter. Call outside the lock.
  func resumeAll() {
    forEach { $0.resume() }
  }
}
