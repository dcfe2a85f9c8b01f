import Testing

@testable import RateLimit

/// No arithmetic trap from the outside (SPEC 4.3.1): `charge`, `refund`, `block`, `update` and a key in any amount
/// of debt saturate where a sum or product overflows, and answer as PostgreSQL does (its sums are `numeric`):
/// two `charge(Int.max)` leave a key refused, never with permits to spare. Issue 53 item 10: two
/// `charge(Int.max)` on a 5-per-minute sliding window left `remaining` 7 and granted; larger sums trapped.
@Suite struct SaturationTests {
  typealias Kind = OperationsTests.Kind

  /// The 292-year horizon of `Int64` nanoseconds: "never".
  static let never = Duration.nanoseconds(Int64.max)

  /// Refused now, with nothing left and `retryAfter` as given, `peek` and `retryAfter(1)` agreeing.
  static func expectRefused(
    _ limiter: OperationsTests.Subject, retryAfter wait: Duration, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(!limiter.tryAcquire(1), sourceLocation: sourceLocation)
    let decided = limiter.decide(1)
    #expect(!decided.isGranted, sourceLocation: sourceLocation)
    #expect(decided.remaining == 0, sourceLocation: sourceLocation)
    #expect(decided.retryAfter == wait, sourceLocation: sourceLocation)
    #expect(decided.resetAfter >= wait, sourceLocation: sourceLocation)
    #expect(limiter.peek(1) == decided, sourceLocation: sourceLocation)
    #expect(limiter.retryAfter(1) == wait, sourceLocation: sourceLocation)
  }

  // MARK: Sliding window

  @Test(arguments: Kind.allCases)
  func twoChargesOfIntMaxLeaveAWindowRefused(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = OperationsTests.window(kind, limit: 5, per: .seconds(60), clock: clock)
    #expect(limiter.charge(.max).remaining == 0)
    let charged = limiter.charge(.max)
    #expect(charged.isGranted && charged.retryAfter == nil && charged.remaining == 0)
    #expect(charged.effectiveWindow == .seconds(60))
    Self.expectRefused(limiter, retryAfter: .seconds(60))
    clock.advance(to: .seconds(59))
    Self.expectRefused(limiter, retryAfter: .seconds(1))
    clock.advance(to: .seconds(60))
    #expect(limiter.decide(1).remaining == 4)
  }

  /// Three charges of `Int.max` hold 3 × (2^63 − 1) permits; each leaves the window at its own instant, and the
  /// key is refused until the last has left. A refund takes the latest first, exactly.
  @Test(arguments: Kind.allCases)
  func chargesPastIntMaxLeaveTheWindowInTurn(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = OperationsTests.window(kind, limit: 5, per: .seconds(60), clock: clock)
    _ = limiter.charge(.max)
    clock.advance(to: .seconds(30))
    _ = limiter.charge(.max)
    _ = limiter.charge(.max)
    Self.expectRefused(limiter, retryAfter: .seconds(60))
    clock.advance(to: .seconds(60))
    Self.expectRefused(limiter, retryAfter: .seconds(30))
    #expect(limiter.reserve(5)?.time == .seconds(90))
    clock.advance(to: .seconds(90))
    #expect(!limiter.tryAcquire(1))  // the reservation at 90 s took the window
    #expect(limiter.decide(1).retryAfter == .seconds(60))
  }

  @Test(arguments: Kind.allCases)
  func aRefundOfIntMaxTakesBackOneHugeChargeAtATime(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = OperationsTests.window(kind, limit: 5, per: .seconds(60), clock: clock)
    #expect(limiter.tryAcquire(1))
    _ = limiter.charge(.max)
    _ = limiter.charge(.max)
    #expect(limiter.refund(.max).remaining == 0)
    Self.expectRefused(limiter, retryAfter: .seconds(60))
    // Int.max − 2 of the first charge: 2 of it and the grant at 0 are left.
    #expect(limiter.refund(.max - 2).remaining == 2)
    #expect(limiter.decide(2).isGranted)
    Self.expectRefused(limiter, retryAfter: .seconds(60))
    #expect(limiter.refund(.max).remaining == 5)
  }

  /// A charge is taken behind the bookings ahead (SPEC 4.2): they keep their instants, and the charges leave the
  /// window at theirs.
  @Test(arguments: Kind.allCases)
  func hugeChargesBehindABookingAhead(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = OperationsTests.window(kind, limit: 5, per: .seconds(60), clock: clock)
    #expect(limiter.tryAcquire(5))
    #expect(limiter.reserve(1)?.time == .seconds(60))
    clock.advance(to: .seconds(1))
    _ = limiter.charge(.max)
    _ = limiter.charge(.max)
    Self.expectRefused(limiter, retryAfter: .seconds(60))
    clock.advance(to: .seconds(61))
    #expect(limiter.decide(1).remaining == 3)
  }

  @Test(arguments: Kind.allCases)
  func aWindowOfIntMaxPermits(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = OperationsTests.window(kind, limit: .max, per: .seconds(60), clock: clock)
    #expect(limiter.tryAcquire(.max))
    _ = limiter.charge(.max)
    _ = limiter.charge(.max)
    Self.expectRefused(limiter, retryAfter: .seconds(60))
    #expect(limiter.decide(.max).retryAfter == .seconds(60))
    clock.advance(to: .seconds(60))
    #expect(limiter.decide(.max).isGranted)
    #expect(limiter.peek(1).remaining == 0)
  }

  /// Debt kept through an update to the largest parameters: the bookings count against the new limit, for a
  /// window that lasts past the horizon.
  @Test(arguments: Kind.allCases)
  func anUpdateToHugeParametersKeepsAWindowsDebt(_ kind: Kind) {
    let clock = ManualClock()
    let single = RateLimiter(limit: 5, per: .seconds(60), clock: clock)
    let keyed = KeyedRateLimiter<String>(limit: 5, per: .seconds(60), clock: clock)
    let limiter: OperationsTests.Subject = kind == .single ? .single(single) : .keyed(keyed)
    _ = limiter.charge(.max)
    _ = limiter.charge(.max)
    _ = limiter.charge(.max)
    if kind == .single {
      single.update(limit: .max, per: .seconds(Int64.max))
    } else {
      keyed.update(limit: .max, per: .seconds(Int64.max))
    }
    Self.expectRefused(limiter, retryAfter: Self.never)
    #expect(limiter.refund(.max).remaining == 0)
    #expect(limiter.refund(.max).remaining == 0)
    // One charge of Int.max is left: the window's limit exactly, nothing to spare.
    #expect(limiter.charge(0).remaining == 0)
    #expect(limiter.refund(1).remaining == 1)
    #expect(limiter.decide(1).isGranted)
  }

  // MARK: Token bucket

  @Test(arguments: Kind.allCases)
  func twoChargesOfIntMaxLeaveABucketInDebtForever(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = OperationsTests.bucket(kind, limit: 5, per: .seconds(60), burst: 5, clock: clock)
    #expect(limiter.charge(.max).remaining == 0)
    let charged = limiter.charge(.max)
    #expect(charged.isGranted && charged.remaining == 0 && charged.resetAfter == Self.never)
    Self.expectRefused(limiter, retryAfter: Self.never)
    clock.advance(by: .seconds(86_400 * 365))
    #expect(!limiter.tryAcquire(1))
    // The debt is exact: two refunds of Int.max pay it all.
    _ = limiter.refund(.max)
    #expect(limiter.refund(.max).remaining == 5)
  }

  @Test(arguments: Kind.allCases)
  func aBucketOfTheLargestParameters(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = OperationsTests.bucket(kind, limit: .max, per: .seconds(Int64.max), burst: .max, clock: clock)
    #expect(limiter.tryAcquire(.max))
    for _ in 0..<4 { _ = limiter.charge(.max) }
    Self.expectRefused(limiter, retryAfter: Self.never)
    limiter.block(.seconds(Int64.max) * 4)
    Self.expectRefused(limiter, retryAfter: Self.never)
    limiter.reset()
    #expect(limiter.decide(.max).isGranted)
  }

  @Test(arguments: Kind.allCases)
  func anUpdateToHugeParametersKeepsABucketsDebt(_ kind: Kind) {
    let clock = ManualClock()
    let single = RateLimiter(limit: 5, per: .seconds(60), burst: 5, clock: clock)
    let keyed = KeyedRateLimiter<String>(limit: 5, per: .seconds(60), burst: 5, clock: clock)
    let limiter: OperationsTests.Subject = kind == .single ? .single(single) : .keyed(keyed)
    _ = limiter.charge(.max)
    _ = limiter.charge(.max)
    func update(limit: Int, per window: Duration, burst: Int) {
      if kind == .single {
        single.update(limit: limit, per: window, burst: burst)
      } else {
        keyed.update(limit: limit, per: window, burst: burst)
      }
    }
    update(limit: .max, per: .seconds(Int64.max), burst: .max)
    Self.expectRefused(limiter, retryAfter: Self.never)
    update(limit: 1, per: .nanoseconds(1), burst: 1)
    // 2 × (2^63 − 1) permits of debt, minus the 5 the bucket held, paid at 1 a nanosecond: past the horizon.
    Self.expectRefused(limiter, retryAfter: Self.never)
  }

  /// An update converts the debt to the new window exactly, past `Int64` permits of debt too: the permits owed
  /// stay owed.
  @Test(arguments: Kind.allCases)
  func anUpdateConvertsADebtPastIntMaxExactly(_ kind: Kind) {
    let clock = ManualClock()
    let single = RateLimiter(limit: 5, per: .seconds(60), burst: 5, clock: clock)
    let keyed = KeyedRateLimiter<String>(limit: 5, per: .seconds(60), burst: 5, clock: clock)
    let limiter: OperationsTests.Subject = kind == .single ? .single(single) : .keyed(keyed)
    _ = limiter.charge(.max)
    _ = limiter.charge(.max)
    if kind == .single {
      single.update(limit: 5, per: .seconds(120), burst: 5)
    } else {
      keyed.update(limit: 5, per: .seconds(120), burst: 5)
    }
    // 2 × (2^63 − 1) − 5 permits owed: a refund of Int.max leaves 2^63 − 6 of them.
    _ = limiter.refund(.max)
    Self.expectRefused(limiter, retryAfter: Self.never)
    #expect(limiter.refund(.max - 6).remaining == 0)
    Self.expectRefused(limiter, retryAfter: .seconds(48))
    #expect(limiter.refund(6).remaining == 5)
  }

  /// The rule itself: a reset leaves a full bucket less the permits booked ahead, counted exactly. Two bookings
  /// of 2^62 + 1 permits ahead summed past `Int.max`, wrapped negative, and the reset left the bucket more than
  /// full (bookings ahead hide it from every answer of the limiter, but not from the credit).
  @Test func aResetCountsTheBookingsAheadExactly() {
    let burst = 1 << 62 + 1
    let bucket = TokenBucket(limit: 2, window: 1, burst: burst)
    var state = bucket.fresh
    for id in [UInt64(1), 3, 5] {
      _ = bucket.reserve(
        burst, at: 0, forgetting: 0, notAfter: .max, id: id, cancellable: true, in: &state)
    }
    #expect(state.ahead.count == 3 && state.ahead.last?.time == Int64(burst))
    bucket.reset(at: 0, in: &state)
    #expect(state.tokens == Wide(-Int64(burst)))
    bucket.refund(.max, at: 0, in: &state)
    #expect(state.tokens == Wide(-Int64(burst)))
  }

  // MARK: Block

  @Test(arguments: Kind.allCases)
  func aHugeBlockAndAHugeDebtAtOnce(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = OperationsTests.window(kind, limit: 5, per: .seconds(60), clock: clock)
    limiter.block(.seconds(Int64.max))
    Self.expectRefused(limiter, retryAfter: Self.never)
    _ = limiter.charge(.max)
    _ = limiter.charge(.max)
    limiter.block(.seconds(Int64.max) * 4)
    Self.expectRefused(limiter, retryAfter: Self.never)
    limiter.reset()
    #expect(limiter.decide(5).isGranted)
  }
}
