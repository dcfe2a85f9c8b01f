import RateLimit
import Testing

/// `update(limit:per:)` and `update(limit:per:burst:)` (SPEC 4.2, "Operating a key: the rules"), with the answers
/// written out, on `RateLimiter` and on keys of `KeyedRateLimiter`. Random timelines with updates are in
/// `OperationsTests` (a key answers as a `RateLimiter`).
@Suite struct UpdateTests {
  typealias Kind = OperationsTests.Kind

  /// A `RateLimiter`, or a `KeyedRateLimiter` seen through key "k", with `update` too.
  struct Subject {
    let operations: OperationsTests.Subject
    let update: (Int, Duration, Int?) -> Void
    let parameters: () -> (Int, Duration, Int?)

    static func make(_ kind: Kind, limit: Int, per window: Duration, burst: Int? = nil, clock: ManualClock)
      -> Subject
    {
      if kind == .single {
        let limiter =
          burst.map { RateLimiter(limit: limit, per: window, burst: $0, clock: clock) }
          ?? RateLimiter(limit: limit, per: window, clock: clock)
        return Subject(
          operations: .single(limiter),
          update: { limit, window, burst in
            if let burst {
              limiter.update(limit: limit, per: window, burst: burst)
            } else {
              limiter.update(limit: limit, per: window)
            }
          },
          parameters: { (limiter.limit, limiter.window, limiter.burst) })
      }
      let limiter =
        burst.map { KeyedRateLimiter<String>(limit: limit, per: window, burst: $0, clock: clock) }
        ?? KeyedRateLimiter<String>(limit: limit, per: window, clock: clock)
      return Subject(
        operations: .keyed(limiter),
        update: { limit, window, burst in
          if let burst {
            limiter.update(limit: limit, per: window, burst: burst)
          } else {
            limiter.update(limit: limit, per: window)
          }
        },
        parameters: { (limiter.limit, limiter.window, limiter.burst) })
    }
  }

  @Test(arguments: Kind.allCases)
  func aHigherLimitGrantsAtOnceAndIsReported(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Subject.make(kind, limit: 2, per: .seconds(10), clock: clock)
    #expect(limiter.operations.tryAcquire(2))
    clock.advance(by: .seconds(5))
    #expect(!limiter.operations.tryAcquire(1))
    limiter.update(3, .seconds(10), nil)
    #expect(limiter.parameters() == (3, .seconds(10), nil))
    let decision = limiter.operations.decide(1)
    #expect(decision.isGranted && decision.remaining == 0 && decision.limit == 3)
    #expect(limiter.operations.decide(1).retryAfter == .seconds(5))
  }

  /// Bookings that had left the old window stay forgotten under a longer one; those in it count.
  @Test(arguments: Kind.allCases)
  func aLongerWindowForgetsWhatHadLeftTheOldOne(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Subject.make(kind, limit: 2, per: .seconds(4), clock: clock)
    #expect(limiter.operations.tryAcquire(1))  // at 0
    clock.advance(by: .seconds(3))
    #expect(limiter.operations.tryAcquire(1))  // at 3
    clock.advance(by: .seconds(3))
    limiter.update(2, .seconds(8), nil)  // at 6: 0 had left (−2, 6]; 3 is in it
    let decision = limiter.operations.decide(1)
    #expect(decision.isGranted && decision.remaining == 0)
    // 3 leaves the new window at 11.
    #expect(limiter.operations.retryAfter(1) == .seconds(5))
  }

  @Test(arguments: Kind.allCases)
  func aShorterWindowCountsOnlyWhatIsInIt(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Subject.make(kind, limit: 2, per: .seconds(10), clock: clock)
    #expect(limiter.operations.tryAcquire(2))
    clock.advance(by: .seconds(5))
    limiter.update(2, .seconds(4), nil)
    #expect(limiter.operations.peek(2).isGranted)
    #expect(limiter.parameters() == (2, .seconds(4), nil))
  }

  @Test(arguments: Kind.allCases)
  func aBucketKeepsItsCreditCappedByTheNewBurst(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Subject.make(kind, limit: 10, per: .seconds(10), burst: 10, clock: clock)
    #expect(limiter.operations.tryAcquire(10))
    clock.advance(by: .seconds(5))  // 5 accrued at 1 a second
    limiter.update(20, .seconds(10), 20)
    #expect(limiter.operations.peek(1).remaining == 4)
    clock.advance(by: .seconds(1))  // 2 a second now
    #expect(limiter.operations.peek(1).remaining == 6)
    limiter.update(20, .seconds(10), 3)
    #expect(limiter.operations.peek(1).remaining == 2)
    #expect(limiter.parameters() == (20, .seconds(10), 3))
  }

  @Test(arguments: Kind.allCases)
  func aFullBucketIsFullAtTheNewBurst(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Subject.make(kind, limit: 5, per: .seconds(10), burst: 5, clock: clock)
    limiter.update(5, .seconds(10), 10)
    #expect(limiter.operations.peek(1).remaining == 9)
    #expect(limiter.operations.tryAcquire(10))
  }

  /// Credit is counted in units of the window: a new window converts it, the same permits.
  @Test(arguments: Kind.allCases)
  func anotherWindowKeepsThePermitsAccrued(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Subject.make(kind, limit: 1, per: .seconds(1), burst: 10, clock: clock)
    #expect(limiter.operations.tryAcquire(10))
    clock.advance(by: .seconds(4))
    limiter.update(2, .seconds(2), 10)  // still 1 a second
    #expect(limiter.operations.peek(1).remaining == 3)
    clock.advance(by: .seconds(1))
    #expect(limiter.operations.peek(1).remaining == 4)
  }

  /// Debt is kept as permits and paid at the new rate.
  @Test(arguments: Kind.allCases)
  func debtIsPaidAtTheNewRate(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Subject.make(kind, limit: 10, per: .seconds(60), burst: 10, clock: clock)
    _ = limiter.operations.charge(25)  // 15 permits of debt
    limiter.update(10, .seconds(30), 10)  // one every 3 s
    #expect(limiter.operations.retryAfter(1) == .seconds(48))
  }

  @Test func everyKeyOfAKeyedLimiterKeepsItsState() {
    let clock = ManualClock()
    let limiter = KeyedRateLimiter<String>(limit: 2, per: .seconds(10), burst: 2, clock: clock)
    #expect(limiter.tryAcquire(2, for: "a"))
    #expect(limiter.tryAcquire(1, for: "b"))
    limiter.update(limit: 2, per: .seconds(10), burst: 4)
    #expect(limiter.peek(1, for: "a").remaining == 0 && !limiter.peek(1, for: "a").isGranted)
    #expect(limiter.peek(1, for: "b").remaining == 0)
    #expect(limiter.tryAcquire(1, for: "b"))
    #expect(limiter.peek(1, for: "fresh").remaining == 3)
    #expect(limiter.count == 2)
  }

  @Test func noLimitingAndBack() {
    let clock = ManualClock()
    let limiter = RateLimiter(limit: 1, per: .seconds(10), clock: clock)
    #expect(limiter.tryAcquire())
    limiter.update(limit: 1, per: .zero)
    #expect(limiter.tryAcquire() && limiter.tryAcquire())
    limiter.update(limit: 1, per: .seconds(10))
    #expect(limiter.tryAcquire())
    #expect(!limiter.tryAcquire())
  }
}

#if os(macOS) || os(Linux) || os(Windows)
  @Suite struct UpdatePreconditionTests {
    @Test func changingTheRuleTrapsNamingBoth() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        RateLimiter(limit: 5, per: .seconds(60)).update(limit: 5, per: .seconds(60), burst: 2)
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("a sliding window of 5 per 60.0 seconds"), "\(message)")
      #expect(message.contains("a token bucket of 5 per 60.0 seconds with burst 2"), "\(message)")
    }

    @Test func aKeyedBucketCannotBecomeAWindow() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        KeyedRateLimiter<String>(limit: 5, per: .seconds(1), burst: 5).update(limit: 5, per: .seconds(1))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("KeyedRateLimiter.update: cannot change the rule from a token bucket"), "\(message)")
    }

    @Test func aZeroLimitTrapsNamingTheValue() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        RateLimiter(limit: 5, per: .seconds(60)).update(limit: 0, per: .seconds(60))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("RateLimiter: limit must be at least 1, got limit: 0"), "\(message)")
    }

    @Test func aNegativeWindowTraps() async {
      await #expect(processExitsWith: .failure) {
        KeyedRateLimiter<String>(limit: 5, per: .seconds(1)).update(limit: 5, per: .seconds(-1))
      }
    }
  }
#endif
