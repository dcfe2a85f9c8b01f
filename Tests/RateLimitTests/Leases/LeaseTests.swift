import Testing

@testable import RateLimit

/// SPEC 4.4, "Leases: the rules" and "the details", in process on a `ManualClock`: every waiter is known to be in
/// the line (``LeaseLines/waitUntilWaiting(atLeast:for:)``) before the test acts, and the hand-off is checked
/// inside the call that made it.
@Suite struct LeaseTests {
  @Test func leasesNeverHoldMoreThanTheLimit() {
    let limiter = ConcurrencyLimiter(limit: 3)
    let a = limiter.tryAcquire(2)
    #expect(a?.permits == 2)
    #expect(limiter.tryAcquire(2) == nil)
    let b = limiter.tryAcquire()
    #expect(b != nil)
    #expect(limiter.inUse == 3)
    #expect(limiter.tryAcquire() == nil)
    a?.release()
    #expect(limiter.inUse == 1)
    a?.release()
    #expect(limiter.inUse == 1, "a second release does nothing")
    #expect(limiter.tryAcquire(4) == nil, "more than the limit is never granted")
    withExtendedLifetime(b) {}
  }

  @Test func aLeaseDeallocatedUnreleasedIsReleased() {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 2)
    do {
      let lease = limiter.tryAcquire(2, for: "k")
      #expect(lease != nil)
      #expect(limiter.inUse(for: "k") == 2)
    }
    #expect(limiter.inUse(for: "k") == 0)
    #expect(limiter.count == 0, "a key at rest is forgotten")
  }

  @Test func anAppsOwnLeaseCallsItsReleaseOnce() {
    let calls = CallCounter()
    do {
      let lease = Lease(permits: 3) { calls.increment() }
      #expect(lease.permits == 3)
      lease.release()
      lease.release()
    }
    #expect(calls.value == 1)
    do { _ = Lease(permits: 1) { calls.increment() } }
    #expect(calls.value == 2, "deallocated unreleased: released then")
  }

  @Test func waitersAreServedFirstComeFirstServedWithMixedSizes() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 4, clock: ManualClock())
    let held = try #require(limiter.tryAcquire(3, for: "k"))
    let big = await waiter(limiter, 3, position: 1)
    let small = await waiter(limiter, 1, position: 2)
    // One permit is free, but the big waiter at the head holds back the small one behind it.
    #expect(limiter.inUse(for: "k") == 3)
    #expect(limiter.tryAcquire(for: "k") == nil, "tryAcquire never jumps the line")
    #expect(limiter.decide(for: "k").remaining == 0)
    held.release()
    // Served inside release(): both fit now (3 + 1).
    #expect(limiter.inUse(for: "k") == 4)
    let bigLease = try await big.value
    let smallLease = try await small.value
    #expect(bigLease.permits == 3 && smallLease.permits == 1)
    bigLease.release()
    smallLease.release()
    #expect(limiter.count == 0)
  }

  @Test(arguments: [0, 1, 2]) func aCancelledWaiterLeavesAndThoseBehindMoveUp(position: Int) async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 2, clock: ManualClock())
    let held = try #require(limiter.tryAcquire(1, for: "k"))
    let w0 = await waiter(limiter, 2, position: 1)
    let w1 = await waiter(limiter, 1, position: 2)
    let w2 = await waiter(limiter, 1, position: 3)
    let waiters = [w0, w1, w2]
    waiters[position].cancel()
    await #expect(throws: CancellationError.self) { try await waiters[position].value }
    switch position {
    case 0:
      // The head left: w1 fits beside the lease held, and is served at once; w2 does not fit.
      #expect(limiter.inUse(for: "k") == 2)
      _ = try await w1.value
      held.release()
      _ = try await w2.value
    case 1, 2:
      #expect(limiter.inUse(for: "k") == 1, "w0 still at the head holds the others back")
      held.release()
      let lease = try await w0.value
      #expect(limiter.inUse(for: "k") == 2)
      lease.release()
      _ = try await (position == 1 ? w2 : w1).value
    default: Issue.record("position")
    }
  }

  @Test(arguments: [0, 1, 2]) func aWaiterWhoseMaxWaitEndsLeavesAndThoseBehindMoveUp(position: Int) async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 2, clock: clock)
    let held = try #require(limiter.tryAcquire(1, for: "k"))
    let sizes = [2, 1, 1]
    var waiters: [Task<Lease, any Error>] = []
    for index in 0..<3 {
      // Only the waiter at `position` has a deadline within the test: 1 s; the others an hour.
      let maxWait: Duration = index == position ? .seconds(1) : .seconds(3_600)
      waiters.append(await waiter(limiter, sizes[index], within: maxWait, position: index + 1))
    }
    clock.advance(by: .seconds(1))
    await #expect(throws: RateLimiterError.waitedTooLong(maxWait: .seconds(1))) { try await waiters[position].value }
    if position == 0 {
      // Served inside the timer that ended the head's wait: the next fits beside the lease held.
      #expect(limiter.inUse(for: "k") == 2)
      held.release()
      #expect(limiter.inUse(for: "k") == 2)
      for task in waiters[1...] { try await task.value.release() }
    } else {
      #expect(limiter.inUse(for: "k") == 1, "the head still holds the others back")
      held.release()
      try await waiters[0].value.release()
      try await waiters[position == 1 ? 2 : 1].value.release()
    }
    #expect(limiter.count == 0)
  }

  @Test func aWaiterNotServedWithinMaxWaitGivesUpOnItsDeadlineExactly() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 1, clock: clock)
    let held = try #require(limiter.tryAcquire(for: "k"))
    let task = await waiter(limiter, within: .seconds(2), position: 1)
    #expect(clock.scheduledCount == 1, "one piece of work, at its deadline")
    clock.advance(by: .seconds(2) - .nanoseconds(1))
    #expect(limiter.inUse(for: "k") == 1)
    clock.advance(by: .nanoseconds(1))
    await #expect(throws: RateLimiterError.waitedTooLong(maxWait: .seconds(2))) { try await task.value }
    held.release()
    #expect(limiter.count == 0)
  }

  @Test func atADeadlineInstantEveryoneDueGivesUpBeforeTheLineIsServed() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 2, clock: clock)
    let held = try #require(limiter.tryAcquire(1, for: "k"))
    let head = await waiter(limiter, 2, within: .seconds(1), position: 1)
    let second = await waiter(limiter, 1, within: .seconds(1), position: 2)
    let third = await waiter(limiter, 1, position: 3)
    clock.advance(by: .seconds(1))
    await #expect(throws: RateLimiterError.waitedTooLong(maxWait: .seconds(1))) { try await head.value }
    // `second` fits once the head is gone, but its deadline is this instant too: it gives up as well.
    let secondResult = await second.result
    #expect(throws: RateLimiterError.waitedTooLong(maxWait: .seconds(1))) { try secondResult.get() }
    if case .success(let wronglyServed) = secondResult { wronglyServed.release() }
    let lease = try await third.value
    #expect(limiter.inUse(for: "k") == 2)
    lease.release()
    held.release()
  }

  @Test func aWaiterWithoutMaxWaitSchedulesNothing() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 1, clock: clock)
    let held = try #require(limiter.tryAcquire(for: "k"))
    let task = await waiter(limiter, position: 1)
    #expect(clock.scheduledCount == 0)
    held.release()
    _ = try await task.value
  }

  @Test func checksComeInOrderCapacityCancellationLine() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 2, clock: ManualClock())
    await #expect(throws: RateLimiterError.exceedsCapacity(requested: 3, capacity: 2)) {
      try await limiter.acquire(3, for: "k")
    }
    let cancelled = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      // Capacity comes before cancellation.
      await #expect(throws: RateLimiterError.exceedsCapacity(requested: 3, capacity: 2)) {
        try await limiter.acquire(3, for: "k")
      }
      await #expect(throws: CancellationError.self) { try await limiter.acquire(1, for: "k") }
    }
    await cancelled.value
    #expect(limiter.count == 0, "an already-cancelled task takes nothing")
    // maxWait .zero: served when free, else throws at once.
    let lease = try await limiter.acquire(2, for: "k", within: .zero)
    await #expect(throws: RateLimiterError.waitedTooLong(maxWait: .zero)) {
      try await limiter.acquire(1, for: "k", within: .zero)
    }
    lease.release()
  }

  @Test func updateUpServesAtOnceAndDownKeepsLeasesAndFailsWaitersTooBig() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 2, clock: ManualClock())
    let held = try #require(limiter.tryAcquire(2, for: "k"))
    let one = await waiter(limiter, 1, position: 1)
    limiter.update(limit: 3)
    #expect(limiter.inUse(for: "k") == 3, "served inside update")
    let oneLease = try await one.value
    let three = await waiter(limiter, 3, position: 1)
    let another = await waiter(limiter, 1, position: 2)
    limiter.update(limit: 2)
    await #expect(throws: RateLimiterError.exceedsCapacity(requested: 3, capacity: 2)) { try await three.value }
    #expect(limiter.inUse(for: "k") == 3, "leases held stay held above a lowered limit")
    #expect(limiter.decide(for: "k").remaining == 0)
    held.release()
    // 1 in use: `another` fits under 2.
    #expect(limiter.inUse(for: "k") == 2)
    _ = try await another.value
    oneLease.release()
    #expect(limiter.limit == 2)
  }

  @Test func decideReportsTheKeyAfterIt() throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 4)
    let first = limiter.decide(3, for: "k")
    #expect(first.isGranted && first.limit == 4 && first.remaining == 1 && !first.isFallback)
    let refused = limiter.decide(2, for: "k")
    #expect(!refused.isGranted && refused.remaining == 1)
    #expect(limiter.decide(1, for: "other").remaining == 3)
    withExtendedLifetime(first) {}
  }

  @Test func withLeaseReleasesWhenTheBodyReturnsThrowsOrIsCancelled() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 1)
    let value = try await limiter.withLease(for: "k") { () async throws -> Int in
      #expect(limiter.inUse(for: "k") == 1)
      return 7
    }
    #expect(value == 7 && limiter.inUse(for: "k") == 0)
    struct Failure: Error {}
    await #expect(throws: Failure.self) {
      try await limiter.withLease(for: "k") { () async throws -> Int in throw Failure() }
    }
    #expect(limiter.inUse(for: "k") == 0)
    let started = CountWaiter()
    let task = Task {
      try await limiter.withLease(for: "k") { () async throws -> Void in
        started.increment()
        try await Task.sleep(for: .seconds(3_600))
      }
    }
    await started.wait(until: 1)
    #expect(limiter.inUse(for: "k") == 1)
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(limiter.inUse(for: "k") == 0 && limiter.count == 0)
  }

  @Test func keysAreKeptApartAndForgottenAtRest() throws {
    let limiter = KeyedConcurrencyLimiter<Int>(limit: 1)
    let leases = (0..<100).compactMap { limiter.tryAcquire(for: $0) }
    #expect(leases.count == 100 && limiter.count == 100)
    for lease in leases { lease.release() }
    #expect(limiter.count == 0)
  }
}

/// A thread-safe counter.
final class CallCounter: @unchecked Sendable {
  // @unchecked Sendable: `count` is only touched under `lock`.
  private let lock = Lock()
  private var count = 0
  var value: Int { lock.withLock { count } }
  func increment() { lock.withLock { count += 1 } }
}
