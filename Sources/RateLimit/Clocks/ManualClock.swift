public import Dispatch

/// Virtual time for tests, yours and the library's: time moves only when you advance it, so no test sleeps.
///
/// It starts at `.zero`. ``schedule(at:on:_:)`` only records work; ``advance(by:)``, ``advance(to:)`` and
/// ``run()`` run it, inline on the thread that advances the clock (not on the queue), in deadline order, with
/// ``now`` set to each item's deadline while it runs. Work due at the same instant runs in the order it was
/// scheduled, and work scheduled while advancing runs in the same advance if it is due by then.
///
/// ```swift
/// let clock = ManualClock()
/// let debouncer = Debouncer<String>(
///   interval: .milliseconds(250), queue: .main, clock: clock
/// ) { search($0) }
/// debouncer("s")
/// debouncer("sw")
/// clock.advance(by: .milliseconds(249))  // nothing yet: still quiet
/// clock.advance(by: .milliseconds(1))    // search("sw") runs, at 250 ms
/// ```
///
/// Work scheduled for `now` or earlier (a leading throttler's run "at once") runs on the next advance, even
/// `advance(by: .zero)`; it never runs inside ``schedule(at:on:_:)``, so a `call` never runs its action
/// synchronously. An action isolated to the main actor runs inline when the clock is advanced from the main actor;
/// advanced from another thread, it runs on the main queue and `advance` waits for it.
public final class ManualClock: RateLimitClock, @unchecked Sendable {
  // @unchecked Sendable: every stored `var` is read and written only inside `lock.withLock`; scheduled work runs
  // after the lock is released, so it may read `now`, schedule more work, or advance the clock.

  /// One piece of scheduled work.
  private struct Item {
    /// When it is due.
    let deadline: Duration
    /// Order of scheduling, to run items due at the same instant first-in first-out.
    let sequence: UInt64
    /// The work.
    let work: @Sendable () -> Void
  }

  /// How many items ``run()`` runs before deciding that work re-schedules itself forever.
  public static let runLimit = 1_000_000

  private let lock = Lock()
  /// Guarded by `lock`.
  private var current: Duration = .zero
  /// Guarded by `lock`. The furthest instant any advance has asked for: `advance(by:)` counts from here, so
  /// that advances from several threads add up (two of 1 ns each move time by 2 ns, whatever their overlap).
  private var horizon: Duration = .zero
  /// Guarded by `lock`. Unordered; the next item is found by a scan, which is plenty for tests.
  private var items: [Item] = []
  /// Guarded by `lock`.
  private var nextSequence: UInt64 = 0
  /// Guarded by `lock`. Tasks in ``waitUntilScheduled(atLeast:)``, by id: how many items each waits for.
  private var scheduleWaiters: [UInt64: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
  /// Guarded by `lock`.
  private var nextWaiterID: UInt64 = 0

  /// Creates a clock at `.zero` with nothing scheduled.
  public init() {}

  /// The current virtual time. While scheduled work runs, the deadline of that work.
  public var now: Duration {
    lock.withLock { current }
  }

  /// How many pieces of work are scheduled and not yet run (including timers a throttler no longer needs,
  /// which run as no-ops).
  public var scheduledCount: Int {
    lock.withLock { items.count }
  }

  /// Records `work` to run when the clock is advanced to `deadline` or beyond. Never runs it here.
  ///
  /// - Parameters:
  ///   - deadline: When `work` becomes due. A deadline at or before ``now`` is due on the next advance.
  ///   - queue: Ignored: `work` runs on the thread that advances the clock.
  ///   - work: The work.
  public func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    let satisfied: [CheckedContinuation<Void, Never>] = lock.withLock {
      items.append(Item(deadline: deadline, sequence: nextSequence, work: work))
      nextSequence &+= 1
      guard !scheduleWaiters.isEmpty else { return [] }
      let due = scheduleWaiters.filter { $0.value.count <= items.count }
      for id in due.keys { scheduleWaiters[id] = nil }
      return due.values.map(\.continuation)
    }
    for continuation in satisfied { continuation.resume() }
  }

  /// Returns once at least `count` pieces of work are scheduled and not yet run (at once if they are, or if the
  /// calling task is cancelled): lets a test wait, without polling or sleeping, until code it started has reached
  /// its timer, such as tasks waiting in ``RateLimiter/acquire(_:within:)``, before it advances the clock.
  ///
  /// ```swift
  /// let clock = ManualClock()
  /// let limiter = RateLimiter(limit: 1, per: .seconds(1), clock: clock)
  /// try await limiter.acquire()           // granted at once
  /// let second = Task { try await limiter.acquire() }
  /// await clock.waitUntilScheduled(atLeast: 1)
  /// clock.advance(by: .seconds(1))        // resumes it
  /// try await second.value
  /// ```
  ///
  /// - Parameter count: How many pieces of work to wait for. Work that has already run does not count.
  public func waitUntilScheduled(atLeast count: Int) async {
    let id: UInt64? = lock.withLock {
      if items.count >= count { return nil }
      nextWaiterID &+= 1
      return nextWaiterID
    }
    guard let id else { return }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let isDone = lock.withLock {
          if items.count >= count || Task.isCancelled { return true }
          scheduleWaiters[id] = (count, continuation)
          return false
        }
        if isDone { continuation.resume() }
      }
    } onCancel: {
      lock.withLock { scheduleWaiters.removeValue(forKey: id) }?.continuation.resume()
    }
  }

  /// Moves time forward by `duration`, running everything due on the way, in order.
  ///
  /// - Parameter duration: How far to advance; must not be negative (a negative one traps, naming the value).
  public func advance(by duration: Duration) {
    if duration < .zero {
      fatalError("ManualClock.advance(by:) needs a non-negative duration, got duration: \(duration)")
    }
    // One lock section reads where time stands and claims the new horizon: atomic with other advances.
    let target = lock.withLock {
      horizon = (Instant(Swift.max(horizon, current)) + duration).duration
      return horizon
    }
    runDue(by: target)
  }

  /// Moves time forward to `instant`, running everything due by then, in order.
  ///
  /// - Parameter instant: Where to stop; must not be earlier than ``now`` (an earlier one traps, naming both).
  public func advance(to instant: Duration) {
    let start: Duration? = lock.withLock {
      if instant < current { return current }
      horizon = Swift.max(horizon, instant)
      return nil
    }
    if let start {
      fatalError("ManualClock.advance(to:) cannot go back in time: instant: \(instant) is before now: \(start)")
    }
    runDue(by: instant)
  }

  /// Runs everything due by `instant`, in order, then moves time there (unless another advance went further).
  private func runDue(by instant: Duration) {
    while let item = takeNext(dueBy: instant) {
      item.work()
    }
    lock.withLock { current = Swift.max(current, instant) }
  }

  /// Advances until nothing is scheduled, running everything in order; ``now`` ends at the last deadline run.
  ///
  /// Traps after ``runLimit`` items, since work that keeps re-scheduling itself would otherwise never end.
  public func run() {
    var count = 0
    while let item = takeNext(dueBy: nil) {
      count += 1
      if count > Self.runLimit {
        fatalError(
          "ManualClock.run() ran \(Self.runLimit) items and work is still scheduled: something re-schedules itself forever"
        )
      }
      item.work()
    }
  }

  /// Removes the first item due by `limit` (any item if `limit` is `nil`) and moves time to its deadline.
  private func takeNext(dueBy limit: Duration?) -> Item? {
    lock.withLock {
      var best: Int?
      for index in items.indices {
        let item = items[index]
        if let limit, item.deadline > limit { continue }
        if let current = best,
          (items[current].deadline, items[current].sequence) <= (item.deadline, item.sequence)
        {
          continue
        }
        best = index
      }
      guard let best else { return nil }
      let item = items.remove(at: best)
      current = max(current, item.deadline)
      return item
    }
  }
}
