import RateLimitStoreKit
import Testing

@testable import RateLimit

/// Issue 27.3: a clock that steps back moves waiters back with it. Limit 1 per 10 s; A waits (booked at 10 s);
/// the clock steps back an hour at 5 s; B books after the step. A must resume at its moved instant (5 s after
/// the step, on the real timeline), then B, in booking order; not B first and A an hour late.
@Suite struct SteppedBackWaitersTests {
  typealias SetBackClock = BackwardsClockTests.SetBackClock

  final class Order: @unchecked Sendable {
    // @unchecked Sendable: `events` is only touched inside `lock.withLock`.
    private let lock = Lock()
    private var events: [(String, Duration)] = []
    func record(_ name: String, at time: Duration) { lock.withLock { events.append((name, time)) } }
    var names: [String] { lock.withLock { events.map(\.0) } }
    var times: [Duration] { lock.withLock { events.map(\.1) } }
  }

  @Test(.timeLimit(.minutes(1)), arguments: [false, true]) func waitersResumeAtTheirMovedInstantsInBookingOrder(
    keyed: Bool
  ) async throws {
    let clock = SetBackClock()
    let order = Order()
    let limiter = RateLimiter(limit: 1, per: .seconds(10), clock: clock)
    let keyedLimiter = KeyedRateLimiter<String>(limit: 1, per: .seconds(10), clock: clock)
    func acquire() async throws {
      if keyed { try await keyedLimiter.acquire(for: "k") } else { try await limiter.acquire() }
    }
    try await acquire()  // the grant at 0
    let a = Task {
      try await acquire()
      order.record("A", at: clock.base.now)
    }
    await clock.base.waitUntilScheduled(atLeast: 1)
    clock.base.advance(to: .seconds(5))
    // A reading at 5 s, so that the step is exactly an hour (time after the last reading counts as none).
    #expect(keyed ? keyedLimiter.retryAfter(for: "k") == .seconds(15) : limiter.retryAfter() == .seconds(15))
    clock.goBack(by: .seconds(3_600))
    let b = Task {
      try await acquire()
      order.record("B", at: clock.base.now)
    }
    await clock.base.waitUntilScheduled(atLeast: 2)
    // A's booking (10 s) is 5 s ahead of the step on the real timeline; B's comes 10 s after it.
    clock.base.advance(to: .seconds(10))
    try await a.value
    clock.base.advance(to: .seconds(20))
    try await b.value
    #expect(order.names == ["A", "B"])
    #expect(order.times == [.seconds(10), .seconds(20)])
  }

  /// Issue 27.3: a step back moved every key's instants one by one, under the lock (16 ms with a million keys).
  /// Now a window's instants are on a time line that runs ahead of the clock by the steps taken, so a step moves
  /// no key, and every key still behaves as if its instants had moved.
  @Test func aStepBackMovesNoKeyOfAWindow() {
    let clock = SetBackClock()
    let limiter = KeyedRateLimiter<Int>(limit: 2, per: .seconds(10), clock: clock)
    for key in 0..<1_000 { #expect(limiter.tryAcquire(for: key)) }
    let ahead = (0..<10).map { key in limiter.reserve(2, for: key)! }  // each booked at 10 s, ahead
    clock.base.advance(to: .seconds(4))
    #expect(limiter.retryAfter(for: 0) == .seconds(16))  // a reading at 4 s: the step below is exactly 60 s
    clock.goBack(by: .seconds(60))
    #expect(limiter.tryAcquire(for: 999))  // the call that takes the step in
    #expect(limiter.statesMoved == 0)
    // As if every instant had moved back 60 s: key 999's first grant (at -60 s now) leaves the window at -50 s.
    #expect(limiter.retryAfter(for: 999) == .seconds(6))
    #expect(limiter.retryAfter(for: 0) == .seconds(16))
    // A booking ahead gives its permits back: key 0 has its one grant in the window, and room for one more.
    ahead[0].cancel()
    #expect(limiter.retryAfter(for: 0) == .zero)
    #expect(ahead[1].time == .seconds(10) && ahead[1].delay == .seconds(10))  // as when it was made
  }

  /// Issue 27.3, token bucket: a step back moved every key with a booking ahead, one by one. Now each takes the
  /// step in when it is next used, and answers as a `RateLimiter` that moved at once.
  @Test func aStepBackMovesNoKeyOfABucketAtOnce() {
    let clock = SetBackClock()
    let keyed = KeyedRateLimiter<Int>(limit: 1, per: .seconds(10), burst: 1, clock: clock)
    let single = RateLimiter(limit: 1, per: .seconds(10), burst: 1, clock: clock)
    for key in 0..<1_000 {
      #expect(keyed.tryAcquire(for: key))
      #expect(keyed.reserve(for: key)?.time == .seconds(10))  // ahead: each key kept whole
    }
    #expect(single.tryAcquire())
    let booked = single.reserve()
    clock.base.advance(to: .seconds(4))
    #expect(keyed.retryAfter(for: 0) == single.retryAfter())  // readings at 4 s: the step below is exactly 60 s
    clock.goBack(by: .seconds(60))
    #expect(keyed.tryAcquire(for: 1_000))  // a fresh key: the call that takes the step in
    #expect(!single.tryAcquire())
    // Moved at once: none. Moved since: the two keys that call's sweep examined (a key with a booking ahead
    // takes the step in when it is next used).
    #expect(keyed.statesMoved == 2)
    for key in [0, 1, 500] { #expect(keyed.retryAfter(for: key) == single.retryAfter()) }
    #expect(keyed.statesMoved <= 2 + 3 * 3)
    #expect(booked?.time == .seconds(10))  // as when it was made
  }

  @Test(.timeLimit(.minutes(1))) func aCancelledWaiterAfterAStepStaysCancelled() async throws {
    let clock = SetBackClock()
    let limiter = RateLimiter(limit: 1, per: .seconds(10), clock: clock)
    #expect(limiter.tryAcquire())
    let a = Task { try await limiter.acquire() }
    await clock.base.waitUntilScheduled(atLeast: 1)
    clock.goBack(by: .seconds(60))
    #expect(limiter.retryAfter() == .seconds(20))  // A's booking at 10 s, moved, then 10 s more
    a.cancel()
    await #expect(throws: CancellationError.self) { try await a.value }
    #expect(limiter.retryAfter() == .seconds(10))  // A's booking given back
    clock.base.advance(by: .seconds(20))
  }
}
