public import Dispatch
public import RateLimit

/// The kit's clock: `now` moves only when a scenario moves it, forwards or back (a wall clock corrected by NTP).
/// Work scheduled on it is counted, never run: the kit's decisions schedule nothing, and an `acquire` that waits
/// schedules its timer, which the scenario awaits (``waitUntilScheduled(atLeast:)``) before it cancels it.
public final class KitClock: RateLimitClock, Sendable {
  private struct State {
    var now = Duration.zero
    var scheduled = 0
    /// Tasks awaiting a count of scheduled work: id, count, continuation.
    var waiters: [(id: UInt64, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// Waiters cancelled before they suspended.
    var cancelled: Set<UInt64> = []
    var nextID: UInt64 = 0
  }

  private let state = LockedValue(State())

  /// A clock at `.zero`.
  public init() {}

  /// Where the scenario has moved it.
  public var now: Duration { state.withLock { $0.now } }

  /// How many pieces of work were scheduled.
  public var scheduledCount: Int { state.withLock { $0.scheduled } }

  /// Counts `work`; never runs it.
  public func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    let ready = state.withLock { state in
      state.scheduled += 1
      let count = state.scheduled
      let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
      state.waiters.removeAll { $0.count <= count }
      return ready
    }
    for continuation in ready { continuation.resume() }
  }

  /// Moves `now` by `duration`: forwards if positive, back if negative.
  public func move(by duration: Duration) {
    state.withLock { $0.now += duration }
  }

  /// Returns once `count` pieces of work have been scheduled in all, or once the calling task is cancelled.
  public func waitUntilScheduled(atLeast count: Int) async {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let ready = state.withLock { state in
          if state.scheduled >= count || state.cancelled.remove(id) != nil { return true }
          state.waiters.append((id, count, continuation))
          return false
        }
        if ready { continuation.resume() }
      }
    } onCancel: {
      let continuation = state.withLock { state in
        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
          state.cancelled.insert(id)
          return CheckedContinuation<Void, Never>?.none
        }
        return state.waiters.remove(at: index).continuation
      }
      continuation?.resume()
    }
  }
}
