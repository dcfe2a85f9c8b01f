/// One limiter's permits: the rule's state behind a lock, and its clock. ``RateLimiter`` is a thin façade over
/// it, so that the window and the bucket share every line but their rule.
final class PermitCore<Rule: PermitRule>: BookingCanceller, @unchecked Sendable {
  // @unchecked Sendable: `book` and `state` are only read and written inside `lock.withLock`; `clock` is
  // immutable and Sendable.
  private let lock = Lock()
  /// `@exclusivity(unchecked)`, both: every access is inside `lock.withLock` and none calls back into this core,
  /// so no two accesses overlap; the runtime's own check would only repeat what the lock guarantees.
  @exclusivity(unchecked) private var book: PermitBook<Rule>
  @exclusivity(unchecked) private var state: Rule.State
  /// The instant, on the rule's time line, until which every request is refused (``RateLimiter/block(for:)``);
  /// `.min`: none. Guarded by `lock` like `state`.
  @exclusivity(unchecked) var blockedUntil = Int64.min
  let clock: PermitClock
  /// The waiters, moved back with the clock.
  let waiters: WaiterTimeline

  init(rule: Rule, parameters: PermitParameters, clock: PermitClock) {
    self.book = PermitBook(rule: rule, parameters: parameters)
    self.state = rule.fresh
    self.clock = clock
    self.waiters = WaiterTimeline(clock: clock)
  }

  /// Runs `body` under the lock with the clock read once (a step back is taken in first): `now` is on the rule's
  /// time line (``PermitBook/onTimeLine(_:)``), where every instant the state keeps is.
  func withNow<Result>(_ body: (inout PermitBook<Rule>, inout Rule.State, Int64) -> Result) -> Result {
    lock.withLock { body(&book, &state, readNow()) }
  }

  /// ``withNow(_:)`` for a request of `permits`: one over the rule's capacity gets `refused(capacity)` without
  /// the clock being read (the capacity is read under the lock: an `update` changes it).
  @inline(__always)
  func withNow<Result>(
    within permits: Int, else refused: (Int) -> Result,
    _ body: (inout PermitBook<Rule>, inout Rule.State, Int64) -> Result
  ) -> Result {
    lock.withLock {
      let capacity = book.rule.capacity
      guard permits <= capacity else { return refused(capacity) }
      return body(&book, &state, readNow())
    }
  }

  /// Reads the clock, under the lock, and takes a step back in: `now` on the rule's time line.
  @inline(__always)
  private func readNow() -> Int64 {
    let reading = clock.now()
    let jump = book.read(reading)
    if jump > 0 {
      if !Rule.takesStepsOnATimeLine { book.rule.clockWentBack(by: jump, in: &state) }
      waiters.clockWentBack(by: jump)
    }
    return book.onTimeLine(reading)
  }

  func tryAcquire(_ permits: Int) -> Bool {
    withNow(within: permits, else: { _ in false }) { book, state, now in
      book.tryAcquire(permits, at: now, blockedUntil: blockedUntil, in: &state)
    }
  }

  func reserve(_ permits: Int, within maxDelay: Duration?) -> BookingOutcome {
    withNow(within: permits, else: { .exceedsCapacity(capacity: $0) }) { book, state, now in
      if var booking = book.reserve(permits, within: maxDelay, at: now, blockedUntil: blockedUntil, in: &state) {
        // The caller's instants are the clock's.
        booking.time = book.onClock(booking.time)
        return .booked(booking, now: book.onClock(now), shift: waiters.currentShift)
      }
      return .exceedsMaxDelay(delay: book.retryAfter(permits, at: now, blockedUntil: blockedUntil, in: state))
    }
  }

  func retryAfter(_ permits: Int) -> Int64? {
    withNow(within: permits, else: { _ in nil }) { book, state, now in
      book.retryAfter(permits, at: now, blockedUntil: blockedUntil, in: state)
    }
  }

  func cancel(_ booking: Booking) {
    withNow { book, state, now in
      // Its instant as it was made, compared with the clock's now.
      var booking = booking
      booking.time = book.onTimeLine(booking.time)
      book.cancel(booking, at: now, blockedUntil: blockedUntil, in: &state)
    }
  }

  /// ``RateLimiter/peek(_:)``.
  func peek(_ permits: Int) -> PermitVerdict {
    withNow { book, state, now in book.peek(permits, at: now, blockedUntil: blockedUntil, in: state) }
  }

  /// ``RateLimiter/charge(_:)``.
  func charge(_ permits: Int) -> PermitVerdict {
    withNow { book, state, now in book.charge(permits, at: now, blockedUntil: blockedUntil, in: &state) }
  }

  /// ``RateLimiter/refund(_:)``.
  func refund(_ permits: Int) -> PermitVerdict {
    withNow { book, state, now in book.refund(permits, at: now, blockedUntil: blockedUntil, in: &state) }
  }

  /// ``RateLimiter/reset()``: the block lifted too.
  func reset() {
    withNow { book, state, now in
      book.reset(at: now, in: &state)
      blockedUntil = .min
    }
  }

  /// ``RateLimiter/update(limit:per:)``: the rule with `parameters` from now on, the state brought under it.
  func update(to parameters: PermitParameters) {
    withNow { book, state, now in
      let (old, startsFresh) = book.update(to: parameters, at: now)
      if startsFresh { state = book.rule.fresh } else { book.rule.adopt(&state, from: old, at: now) }
    }
  }

  /// ``RateLimiter/block(for:)``: refuses everything until `duration` from now (that instant excluded), unless
  /// a block already ends later.
  func block(for duration: Duration) {
    withNow { _, _, now in
      blockedUntil = Swift.max(blockedUntil, Nanoseconds.adding(now, Nanoseconds.roundingUp(duration)))
    }
  }
}
