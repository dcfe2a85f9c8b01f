/// The waiters of one permit limiter, so that a clock that steps back moves them back too (SPEC 4.0.1).
///
/// Every waiting `acquire` keeps its own timer at its booking's instant, as without a step. When the clock
/// steps back by j, every remembered instant moves back by j, and so do the waiters': one more timer, the
/// *chain*, is armed at the earliest waiter's moved instant; when it fires it resumes every waiter whose moved
/// instant has come, in booking order, and re-arms for the next. A waiter's own timer, now late, finds it
/// resumed and does nothing ("a superseded timer may stay scheduled and do nothing"). A step costs O(log n).
///
/// ```
/// 1 per 10 s   A books 10 s, step back 1 h at 5 s, B books
/// own timers   A at 10 s of the old time line (an hour late), B
/// chain        A at its moved instant (5 s after the step), then B
/// ```
///
/// Waiters are ordered by `instant + shift at booking`: the moved instant plus the limiter's total shift, a
/// constant per waiter, so the heap's order never changes when the clock steps.
///
/// `package`: a `PostgresRateLimiter` with `.clock(c)` keeps one too, its steps noticed as it reads `c`.
package final class WaiterTimeline: @unchecked Sendable {
  // @unchecked Sendable: every stored property is only touched inside `lock.withLock`; `clock` is immutable.
  private struct Entry {
    /// The booking's instant plus the total shift when it was made.
    var key: Int64
    var sequence: UInt64
    var waiter: PermitWaiter

    func precedes(_ other: Entry) -> Bool { (key, sequence) < (other.key, other.sequence) }
  }

  private let lock = Lock()
  private let clock: PermitClock
  /// Every backward step, summed.
  private var shift: Int64 = 0
  private var heap: [Entry] = []
  private var sequence: UInt64 = 0
  /// The chain's generation: a chain timer whose generation is not the latest does nothing.
  private var generation: UInt64 = 0
  /// The instant the latest chain timer is armed at, if one is.
  private var chainAt: Int64?

  init(clock: PermitClock) {
    self.clock = clock
  }

  /// The waiters of a limiter on `clock`.
  package convenience init(_ clock: some RateLimitClock) {
    self.init(clock: PermitClock(clock))
  }

  /// The total shift, for a booking made now (read under the limiter's lock, with the step taken in).
  package var currentShift: Int64 { lock.withLock { shift } }

  /// Adds a waiter booked at `instant` when the total shift was `shift`. Drops resumed waiters from the top.
  func add(_ waiter: PermitWaiter, at instant: Int64, shift bookedShift: Int64) {
    lock.withLock {
      while let top = heap.first, top.waiter.isDone { popTop() }
      sequence &+= 1
      push(Entry(key: Nanoseconds.adding(instant, bookedShift), sequence: sequence, waiter: waiter))
      // Booked before a step was taken in by this call: its instant has moved already.
      if bookedShift != shift { armChain(atMostAt: Nanoseconds.subtracting(heap[0].key, shift)) }
    }
  }

  /// The clock went back by `jump` (called under the limiter's lock, where the step is noticed).
  package func clockWentBack(by jump: Int64) {
    lock.withLock {
      shift = Nanoseconds.adding(shift, jump)
      while let top = heap.first, top.waiter.isDone { popTop() }
      guard let top = heap.first else { return }
      armChain(atMostAt: Nanoseconds.subtracting(top.key, shift))
    }
  }

  private func armChain(atMostAt instant: Int64) {
    if let chainAt, chainAt <= instant { return }
    generation &+= 1
    chainAt = instant
    let armed = generation
    clock.schedule(at: instant) { [weak self] in self?.chainFired(generation: armed) }
  }

  /// Resumes the waiters whose moved instants have come, in order, then re-arms for the next.
  private func chainFired(generation armed: UInt64) {
    let now = clock.now()
    let due: [PermitWaiter] = lock.withLock {
      guard armed == generation else { return [] }
      chainAt = nil
      var due: [PermitWaiter] = []
      while let top = heap.first, top.waiter.isDone || Nanoseconds.subtracting(top.key, shift) <= now {
        if !top.waiter.isDone { due.append(top.waiter) }
        popTop()
      }
      if let top = heap.first { armChain(atMostAt: Nanoseconds.subtracting(top.key, shift)) }
      return due
    }
    for waiter in due { waiter.grant() }
  }

  /// A binary min-heap by (key, sequence): O(log n).
  private func push(_ entry: Entry) {
    heap.append(entry)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].precedes(heap[parent]) else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private func popTop() {
    let last = heap.removeLast()
    guard !heap.isEmpty else { return }
    heap[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1
      guard left < heap.count else { break }
      var child = left
      if left + 1 < heap.count, heap[left + 1].precedes(heap[left]) { child = left + 1 }
      guard heap[child].precedes(heap[parent]) else { break }
      heap.swapAt(child, parent)
      parent = child
    }
  }
}
