import Dispatch
import Testing

@testable import RateLimit

/// Go's `rate` tests run at 10 per second with a burst of 2: `d` is 100 ms, `t(k)` is k·d.
private let d = Duration.milliseconds(100)
private func t(_ k: Int) -> Duration { d * k }

/// The token bucket, against cases taken from Go's own `rate_test.go` (same calls at the same instants, same
/// answers), and the SPEC's two deliberate differences.
@Suite struct TokenBucketTests {
  let clock = SettableClock()

  func bucket(burst: Int = 2) -> RateLimiter {
    RateLimiter(limit: 10, per: .seconds(1), burst: burst, clock: clock)
  }

  /// Go's `runReserve`: `reserveN(at, n)` must give `expected` (or fail when `nil`).
  @discardableResult
  func reserve(
    _ limiter: RateLimiter, at instant: Duration, _ permits: Int, _ expected: Duration?,
    within maxDelay: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) -> RateLimiter.Reservation? {
    clock.now = instant
    let reservation = limiter.reserve(permits, within: maxDelay)
    #expect(reservation?.time == expected, sourceLocation: sourceLocation)
    return reservation
  }

  func allow(_ limiter: RateLimiter, at instant: Duration, _ permits: Int) -> Bool {
    clock.now = instant
    return limiter.tryAcquire(permits)
  }

  @Test func simpleReserve() {
    let limiter = bucket()
    reserve(limiter, at: t(0), 2, t(0))
    reserve(limiter, at: t(0), 2, t(2))
    reserve(limiter, at: t(3), 2, t(4))
  }

  @Test func mix() {
    let limiter = bucket()
    reserve(limiter, at: t(0), 3, nil)  // more than the burst
    reserve(limiter, at: t(0), 2, t(0))
    #expect(!allow(limiter, at: t(1), 2))  // not enough tokens
    reserve(limiter, at: t(1), 2, t(2))
    #expect(!allow(limiter, at: t(1), 1))  // negative tokens
    #expect(allow(limiter, at: t(3), 1))
  }

  @Test func allowAtTheBoundaries() {
    let limiter = bucket()
    #expect(allow(limiter, at: t(0), 1))
    #expect(allow(limiter, at: t(0), 1))
    #expect(!allow(limiter, at: t(0), 1))
    #expect(!allow(limiter, at: t(1) - .nanoseconds(1), 1))
    #expect(allow(limiter, at: t(1), 1))  // exactly one token back after d
    #expect(!allow(limiter, at: t(1), 1))
  }

  @Test func cancelInThePastDoesNothing() {
    let limiter = bucket()
    reserve(limiter, at: t(0), 2, t(0))
    let booking = reserve(limiter, at: t(0), 1, t(1))
    clock.now = t(2)
    booking?.cancel()  // after its time: the permits were used
    reserve(limiter, at: t(2), 2, t(3))
  }

  @Test func cancelZeroTokens() {
    let limiter = bucket()
    reserve(limiter, at: t(0), 2, t(0))
    let booking = reserve(limiter, at: t(0), 1, t(1))
    reserve(limiter, at: t(0), 1, t(2))
    booking?.cancel()  // at t0: 0 tokens back, the next booking counted on them
    reserve(limiter, at: t(0), 1, t(3))
  }

  @Test func cancelOneToken() {
    let limiter = bucket()
    reserve(limiter, at: t(0), 2, t(0))
    let booking = reserve(limiter, at: t(0), 2, t(2))
    reserve(limiter, at: t(0), 1, t(3))
    clock.now = t(2)
    booking?.cancel()  // 1 token back
    reserve(limiter, at: t(2), 2, t(4))
  }

  @Test func cancelMulti() {
    let limiter = bucket(burst: 4)
    reserve(limiter, at: t(0), 4, t(0))
    let a = reserve(limiter, at: t(0), 3, t(3))
    reserve(limiter, at: t(0), 1, t(4))
    let c = reserve(limiter, at: t(0), 1, t(5))
    clock.now = t(1)
    c?.cancel()  // 1 back
    a?.cancel()  // 2 back, as if c was never booked
    reserve(limiter, at: t(1), 3, t(5))
  }

  @Test func reserveJumpBack() {
    let limiter = bucket()
    reserve(limiter, at: t(1), 2, t(1))
    reserve(limiter, at: t(0), 1, t(1))  // the step back is taken in by this booking
    reserve(limiter, at: t(2), 2, t(3))
    reserve(limiter, at: t(0), 3, nil)  // more than the burst: changes nothing
    reserve(limiter, at: t(2), 1, t(4))
    reserve(limiter, at: t(0), 2, nil, within: d)  // too far: changes nothing
    reserve(limiter, at: t(2), 1, t(5))
  }

  @Test func reserveJumpBackCancel() {
    let limiter = bucket()
    reserve(limiter, at: t(1), 2, t(1))
    let booking = reserve(limiter, at: t(1), 2, t(3))
    reserve(limiter, at: t(1), 1, t(4))
    clock.now = t(0)
    booking?.cancel()  // 1 token back
    reserve(limiter, at: t(1), 2, t(4))
  }

  @Test func reserveWithin() {
    let limiter = bucket()
    reserve(limiter, at: t(0), 2, t(0), within: d)
    reserve(limiter, at: t(0), 1, t(1), within: d)  // close enough
    reserve(limiter, at: t(0), 1, nil, within: d)  // too far
    #expect(limiter.retryAfter() == t(2))
    clock.now = t(2)
    #expect(limiter.retryAfter() == .zero)
  }

  /// SPEC: a second cancel of the same reservation does nothing (Go gives the permits back again).
  @Test func aSecondCancelDoesNothing() {
    let limiter = bucket()
    reserve(limiter, at: t(0), 2, t(0))
    let booking = reserve(limiter, at: t(0), 2, t(2))
    booking?.cancel()
    booking?.cancel()
    reserve(limiter, at: t(0), 2, t(2))  // 2 came back once, not 4
  }

  /// SPEC: no request is booked earlier than a live booking made before it (Go's middle cancel lets a newcomer
  /// overtake a waiting one).
  @Test func noRequestOvertakesALiveBookingAfterAMiddleCancel() {
    let limiter = RateLimiter(limit: 10, per: .seconds(1), burst: 3, clock: clock)
    reserve(limiter, at: t(0), 3, t(0))
    let a = reserve(limiter, at: t(0), 3, t(3))
    reserve(limiter, at: t(0), 1, t(4))
    a?.cancel()  // Go: 2 tokens back, and the next request would be booked at t3, before t4
    #expect(!allow(limiter, at: t(0), 1))
    reserve(limiter, at: t(0), 1, t(4))
  }

  /// SPEC 3.1: when first come, first served books a request later than the bucket alone would, that later
  /// instant is the booking's `time` everywhere (Go's `timeToAct` and `lastEvent`), so a cancel exactly at it still
  /// gives the permits back. (1 per 20 ms, burst 4; in permits: A takes the bucket, B's 3 and C's 1 go into debt,
  /// cancelling B gives 2 back, D's bucket instant is 60 ms but C's live booking puts it at 80.)
  @Test func aCancelAtTheInstantFirstComeFirstServedBookedGivesThePermitsBack() {
    let limiter = RateLimiter(limit: 1, per: .milliseconds(20), burst: 4, clock: clock)
    reserve(limiter, at: .zero, 4, .zero)
    let b = reserve(limiter, at: .zero, 3, .milliseconds(60))
    reserve(limiter, at: .zero, 1, .milliseconds(80))
    b?.cancel()
    let d = reserve(limiter, at: .zero, 1, .milliseconds(80))
    #expect(d?.delay == .milliseconds(80))
    clock.now = .milliseconds(80)
    d?.cancel()  // at its time: its permit comes back (3.0 gave nothing: it was past the bucket's own 60 ms)
    #expect(limiter.retryAfter(2) == .zero)
    #expect(limiter.tryAcquire(2))
    #expect(!limiter.tryAcquire(1))
  }

  /// Go's `TestTinyLimit` (golang/go#71154): 1 per 10^10 s, burst 1. The second request waits past the
  /// 292-year horizon of `Int64` nanoseconds: refused, never "allow everything"; `retryAfter` and a reservation
  /// report the horizon.
  @Test func tinyLimit() {
    let limiter = RateLimiter(limit: 1, per: .seconds(10_000_000_000), burst: 1, clock: clock)
    #expect(allow(limiter, at: .zero, 1))
    #expect(!allow(limiter, at: .zero, 1))
    #expect(!allow(limiter, at: .seconds(1_000_000_000), 1))
    #expect(limiter.retryAfter(1) == .nanoseconds(Int64.max) - .seconds(1_000_000_000))
    #expect(limiter.reserve(within: .seconds(1_000_000_000)) == nil)
    let booking = limiter.reserve()
    #expect(booking?.time == .nanoseconds(Int64.max))
    #expect(booking?.delay == .nanoseconds(Int64.max) - .seconds(1_000_000_000))
    #expect(!limiter.tryAcquire())
    let window = RateLimiter(limit: 1, per: .seconds(10_000_000_000), clock: clock)
    #expect(window.tryAcquire())
    #expect(!window.tryAcquire())
    #expect(window.retryAfter() == .nanoseconds(Int64.max) - .seconds(1_000_000_000))
    #expect(window.reserve()?.time == .nanoseconds(Int64.max))
    #expect(window.reserve()?.time == .nanoseconds(Int64.max))  // a booking at the horizon does not loop
    let keyed = KeyedRateLimiter<String>(limit: 1, per: .seconds(10_000_000_000), burst: 1, clock: clock)
    #expect(keyed.tryAcquire(for: "a"))
    #expect(!keyed.tryAcquire(for: "a"))
    #expect(keyed.retryAfter(for: "a") == .nanoseconds(Int64.max) - .seconds(1_000_000_000))
    #expect(keyed.count == 1)
  }

  /// The refill is exact: 3 per second is one every 333,333,333⅓ ns. Asked every millisecond for 10 s (the bucket
  /// never full again after the start, so no credit is lost to the cap), it grants exactly k·N + B = 30 + 3: the
  /// 30th refill completes at 10 s to the nanosecond. Floating point would come up one short.
  @Test func noRoundingDriftOverManyWindows() {
    let limiter = RateLimiter(limit: 3, per: .seconds(1), burst: 3, clock: clock)
    var granted = 0
    for millisecond in 0...10_000 where allow(limiter, at: .milliseconds(millisecond), 1) { granted += 1 }
    #expect(granted == 33)
  }

  @Test func bookingInstantsRoundUpToTheNanosecond() {
    let limiter = RateLimiter(limit: 3, per: .seconds(1), burst: 1, clock: clock)
    reserve(limiter, at: .zero, 1, .zero)
    reserve(limiter, at: .zero, 1, .nanoseconds(333_333_334))
    reserve(limiter, at: .zero, 1, .nanoseconds(666_666_667))
    reserve(limiter, at: .zero, 1, .seconds(1))
  }

  @Test func capacityAndZeroWindow() async {
    let limiter = bucket()
    #expect(!allow(limiter, at: t(0), 3))
    #expect(limiter.reserve(3) == nil)
    #expect(limiter.retryAfter(3) == nil)
    await #expect(throws: RateLimiterError.exceedsCapacity(requested: 3, capacity: 2)) {
      try await limiter.acquire(3)
    }
    let unlimited = RateLimiter(limit: 1, per: .zero, burst: 2, clock: clock)
    for _ in 0..<100 { #expect(unlimited.tryAcquire(2)) }
    #expect(!unlimited.tryAcquire(3))
    #expect(unlimited.reserve(2)?.delay == .zero)
  }
}

/// The strict sliding window, timeline by timeline.
@Suite struct SlidingWindowTests {
  let clock = SettableClock()

  func at(_ seconds: Int) -> Duration { .seconds(seconds) }

  @Test func withALimitOfOneItIsThrottlerLeading() {
    let limiter = RateLimiter(limit: 1, per: .seconds(3), clock: clock)
    clock.now = at(0)
    #expect(limiter.tryAcquire())
    clock.now = at(3) - .nanoseconds(1)
    #expect(!limiter.tryAcquire())
    clock.now = at(3)
    #expect(limiter.tryAcquire())  // a gap of exactly T is enough
    clock.now = at(5)
    #expect(!limiter.tryAcquire())
    #expect(limiter.retryAfter() == .seconds(1))
  }

  @Test func bookingsSlideTheWindow() {
    let limiter = RateLimiter(limit: 2, per: .seconds(4), clock: clock)
    clock.now = at(0)
    #expect(limiter.reserve()?.time == at(0))
    clock.now = at(1)
    #expect(limiter.reserve()?.time == at(1))
    clock.now = at(2)
    #expect(limiter.reserve()?.time == at(4))  // a leaves at 4
    #expect(!limiter.tryAcquire())  // someone waits
    clock.now = at(5)
    #expect(limiter.reserve()?.time == at(5))  // b left at 5; (1, 5] holds c only
    #expect(limiter.reserve()?.time == at(8))  // behind c (4) + 4
  }

  @Test func manyPermitsAtOnce() async {
    let limiter = RateLimiter(limit: 3, per: .seconds(10), clock: clock)
    clock.now = at(0)
    #expect(limiter.reserve(2)?.time == at(0))
    clock.now = at(1)
    #expect(limiter.reserve(2)?.time == at(10))
    #expect(limiter.reserve(4) == nil)
    #expect(limiter.retryAfter(4) == nil)
    await #expect(throws: RateLimiterError.exceedsCapacity(requested: 4, capacity: 3)) {
      try await limiter.acquire(4)
    }
    #expect(limiter.reserve(1, within: .seconds(8)) == nil)  // would be 10: too far, nothing booked
    #expect(limiter.reserve(1, within: .seconds(9))?.time == at(10))
    // 2 at 0, 2 + 1 at 10: the next fits once the 2 at 10 leave, at 20.
    await #expect(throws: RateLimiterError.exceedsMaxDelay(delay: .seconds(19), maxDelay: .seconds(1))) {
      try await limiter.acquire(within: .seconds(1))
    }
  }

  @Test func cancellingTheLatestGivesItsPermitsBack() {
    let limiter = RateLimiter(limit: 1, per: .seconds(10), clock: clock)
    clock.now = at(0)
    #expect(limiter.tryAcquire())
    let second = limiter.reserve()
    #expect(second?.time == at(10))
    #expect(second?.delay == at(10))
    second?.cancel()
    #expect(limiter.reserve()?.time == at(10))  // not 20
  }

  @Test func cancellingAMiddleBookingKeepsLaterInstants() {
    let limiter = RateLimiter(limit: 1, per: .seconds(10), clock: clock)
    clock.now = at(0)
    #expect(limiter.reserve()?.time == at(0))
    let middle = limiter.reserve()
    #expect(limiter.reserve()?.time == at(20))
    clock.now = at(1)
    middle?.cancel()
    middle?.cancel()  // twice: nothing more
    #expect(limiter.reserve()?.time == at(30))  // behind the booking at 20, which kept its instant
  }

  @Test func cancelAfterItsTimeDoesNothing() {
    let limiter = RateLimiter(limit: 1, per: .seconds(10), clock: clock)
    clock.now = at(0)
    let first = limiter.reserve()
    clock.now = at(1)
    first?.cancel()
    #expect(!limiter.tryAcquire())
  }

  @Test func aClockThatGoesBackCountsAsNoTimePassing() {
    let limiter = RateLimiter(limit: 1, per: .seconds(10), clock: clock)
    clock.now = at(100)
    #expect(limiter.tryAcquire())
    clock.now = at(104)
    #expect(!limiter.tryAcquire())
    clock.now = at(50)  // back 54 s: the 4 s that had passed still count, nothing more comes back
    #expect(!limiter.tryAcquire())
    #expect(limiter.retryAfter() == .seconds(6))
    clock.now = at(56)
    #expect(limiter.tryAcquire())
  }

  @Test func zeroWindowDoesNotLimit() {
    let limiter = RateLimiter(limit: 2, per: .zero, clock: clock)
    for _ in 0..<100 { #expect(limiter.tryAcquire(2)) }
    #expect(!limiter.tryAcquire(3))
    #expect(limiter.retryAfter() == .zero)
  }

  @Test func hugeWindowsSaturate() {
    let limiter = RateLimiter(limit: 1, per: .seconds(Int64.max), clock: clock)
    #expect(limiter.tryAcquire())
    #expect(!limiter.tryAcquire())
    #expect(limiter.reserve(within: .seconds(1_000_000)) == nil)
    let bucket = RateLimiter(limit: 1, per: .seconds(Int64.max), burst: 1_000, clock: clock)
    #expect(bucket.tryAcquire(1_000))
    #expect(!bucket.tryAcquire())
  }
}

/// `acquire()`: waiters in booking order, cancellation, lifetime. On a ManualClock, with no sleeping: tasks are
/// started one at a time, and the test waits until each is waiting on the clock.
@Suite struct RateLimiterAcquireTests {
  @Test func waitersResumeInBookingOrderAtTheirInstants() async throws {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 1, per: .seconds(1), clock: clock)
    let log = Recorder<Int>()
    try await limiter.acquire()  // granted at once, no advance needed
    var tasks: [Task<Void, any Error>] = []
    for index in 1...3 {
      tasks.append(
        Task {
          try await limiter.acquire()
          log.record(index, at: clock.now)
        })
      await clock.waitUntilScheduled(atLeast: index)
    }
    #expect(clock.scheduledCount == 3)  // exactly one piece of work per waiter
    clock.advance(by: .seconds(1))
    try await tasks[0].value
    clock.advance(by: .seconds(1))
    try await tasks[1].value
    clock.advance(by: .seconds(1))
    try await tasks[2].value
    #expect(log.values == [1, 2, 3])
    #expect(log.times == [.seconds(1), .seconds(2), .seconds(3)])
  }

  @Test func anAlreadyCancelledTaskBooksNothing() async {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 1, per: .seconds(1), clock: clock)
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await limiter.acquire()
    }
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(limiter.tryAcquire())
  }

  @Test func aWaiterCancelledGivesItsBookingBackAndThrowsAtOnce() async throws {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 1, per: .seconds(1), clock: clock)
    #expect(limiter.tryAcquire())
    let waiter = Task { try await limiter.acquire() }
    await clock.waitUntilScheduled(atLeast: 1)
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    #expect(limiter.reserve()?.time == .seconds(1))  // the booking at 1 s came back
    clock.run()  // the cancelled waiter's work runs and does nothing
  }

  @Test func aCancelRacingTheGrantEitherReturnsOrGivesBack() async {
    for _ in 0..<200 {
      let clock = ManualClock()
      let limiter = RateLimiter(limit: 1, per: .seconds(1), clock: clock)
      #expect(limiter.tryAcquire())
      let waiter = Task { try await limiter.acquire() }
      await clock.waitUntilScheduled(atLeast: 1)
      let advance = Task.detached { clock.advance(by: .seconds(1)) }
      waiter.cancel()
      let result = await waiter.result
      await advance.value
      // Granted: the permit at 1 s was used, the next is at 2 s. Cancelled in time: the permit at 1 s is free.
      switch result {
      case .success: #expect(limiter.retryAfter() == .seconds(1))
      case .failure: #expect(limiter.retryAfter() == .zero)
      }
    }
  }

  @Test func aWaitingAcquireKeepsItsLimiterAliveAndTimersNeverDo() async throws {
    let clock = ManualClock()
    weak var weakLimiter: RateLimiter?
    let task: Task<Void, any Error>
    do {
      let limiter = RateLimiter(limit: 1, per: .seconds(1), clock: clock)
      weakLimiter = limiter
      #expect(limiter.tryAcquire())
      task = Task { try await limiter.acquire() }
      await clock.waitUntilScheduled(atLeast: 1)
    }
    #expect(weakLimiter != nil)
    clock.advance(by: .seconds(1))
    try await task.value
    #expect(weakLimiter == nil)
    #expect(clock.scheduledCount == 0)
  }

  /// 4 threads × 2,500 `acquire`s on the real clock, 500 per 10 ms: none lost, and the rate holds overall.
  @Test func threadsAcquiringOnTheRealClock() async throws {
    let limiter = RateLimiter(limit: 500, per: .milliseconds(10))
    let start = DispatchTime.now().uptimeNanoseconds
    let counts = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<4 {
        group.addTask {
          for _ in 0..<2_500 { try await limiter.acquire() }
          return 2_500
        }
      }
      return try await group.reduce(0, +)
    }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    #expect(counts == 10_000)
    // 10,000 permits at 500 per 10 ms: the last window starts no earlier than 190 ms after the first.
    #expect(elapsed >= 190_000_000)
  }
}
