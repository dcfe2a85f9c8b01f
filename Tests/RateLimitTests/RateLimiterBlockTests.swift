import RateLimit
import Testing

/// `RateLimiter.block(for:)` (SPEC 4.2, "Operating a key"), on a `ManualClock`: what 4.3's API client uses to
/// follow a server's `Retry-After`.
@Suite struct RateLimiterBlockTests {
  @Test(arguments: [false, true])
  func aBlockRefusesEverythingUntilItsEnd(bucket: Bool) {
    let clock = ManualClock()
    let limiter =
      bucket
      ? RateLimiter(limit: 2, per: .seconds(10), burst: 2, clock: clock)
      : RateLimiter(limit: 2, per: .seconds(10), clock: clock)
    limiter.block(for: .seconds(5))
    #expect(!limiter.tryAcquire())
    let blocked = limiter.decide()
    #expect(!blocked.isGranted)
    #expect(blocked.remaining == 0)
    #expect(blocked.retryAfter == .seconds(5))
    #expect(blocked.resetAfter >= .seconds(5))
    #expect(blocked.effectiveWindow == .seconds(5))
    #expect(limiter.retryAfter() == .seconds(5))
    clock.advance(to: .nanoseconds(4_999_999_999))
    #expect(!limiter.tryAcquire())
    clock.advance(to: .seconds(5))
    #expect(limiter.tryAcquire())
    #expect(limiter.tryAcquire())
    #expect(!limiter.tryAcquire())
  }

  @Test func theWaitIsTheLaterOfTheBlockAndTheRule() {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 2, per: .seconds(10), clock: clock)
    #expect(limiter.tryAcquire(2))
    limiter.block(for: .seconds(3))
    // The window frees its permits at 10 s, after the block's end.
    #expect(limiter.decide().retryAfter == .seconds(10))
    limiter.block(for: .seconds(12))
    #expect(limiter.decide().retryAfter == .seconds(12))
  }

  @Test func aReservationDuringABlockIsBookedAtItsEnd() {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 1, per: .seconds(10), clock: clock)
    limiter.block(for: .seconds(4))
    let first = limiter.reserve()
    #expect(first?.delay == .seconds(4))
    // Behind it, as the same request made at the block's end.
    #expect(limiter.reserve()?.delay == .seconds(14))
    #expect(limiter.reserve(within: .seconds(13)) == nil)
  }

  @Test func anAcquireWaitsForTheBlocksEnd() async throws {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 5, per: .seconds(1), clock: clock)
    limiter.block(for: .seconds(2))
    let waiter = Task { try await limiter.acquire() }
    await clock.waitUntilScheduled(atLeast: 1)
    clock.advance(to: .seconds(2))
    try await waiter.value
    #expect(clock.now == .seconds(2))
  }

  @Test func aShorterOrZeroBlockChangesNothing() {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 1, per: .seconds(1), clock: clock)
    limiter.block(for: .zero)
    #expect(limiter.tryAcquire())
    limiter.block(for: .seconds(10))
    limiter.block(for: .seconds(1))
    clock.advance(to: .seconds(5))
    #expect(limiter.retryAfter() == .seconds(5))
  }

  @Test func aLimiterWithoutLimitingIsBlockedToo() {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 1, per: .zero, clock: clock)
    limiter.block(for: .seconds(1))
    #expect(!limiter.tryAcquire())
    #expect(limiter.decide().retryAfter == .seconds(1))
    #expect(limiter.reserve()?.delay == .seconds(1))
    clock.advance(to: .seconds(1))
    #expect(limiter.tryAcquire())
  }

  @Test func aHugeBlockSaturates() {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 1, per: .seconds(1), clock: clock)
    limiter.block(for: .seconds(Int64.max))
    #expect(!limiter.tryAcquire())
    #expect(limiter.retryAfter()! > .seconds(9_000_000_000))
  }

  /// A reservation made during a block was booked from the block's end: cancelled, it gives back from there,
  /// never the refill of the block's time twice.
  @Test func aCancelDuringABlockGivesBackAtItsEnd() {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 1, per: .seconds(10), burst: 5, clock: clock)
    #expect(limiter.tryAcquire(5))
    limiter.block(for: .seconds(20))
    let booked = limiter.reserve()
    #expect(booked?.delay == .seconds(20))
    clock.advance(to: .seconds(1))
    booked?.cancel()
    clock.advance(to: .seconds(20))
    // 2 permits refilled by 20 s, and the cancelled one's back: 2, not 3.
    #expect(limiter.tryAcquire(2))
    #expect(!limiter.tryAcquire())
  }
}
