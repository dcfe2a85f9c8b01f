import RateLimit
import RateLimitStoreKit
import Testing

/// Operating a key (SPEC 4.2, "Operating a key: the rules"), with the SPEC's answers written out, on
/// `RateLimiter` and on a key of `KeyedRateLimiter`; then random timelines of every operation on both, which
/// must answer alike.
@Suite struct OperationsTests {
  /// One limiter, through the operations both types have.
  struct Subject {
    let tryAcquire: (Int) -> Bool
    let decide: (Int) -> RateLimitDecision
    let peek: (Int) -> RateLimitDecision
    let charge: (Int) -> RateLimitDecision
    let refund: (Int) -> RateLimitDecision
    let reset: () -> Void
    let block: (Duration) -> Void
    let reserve: (Int) -> RateLimiter.Reservation?
    let retryAfter: (Int) -> Duration?

    static func single(_ limiter: RateLimiter) -> Subject {
      Subject(
        tryAcquire: { limiter.tryAcquire($0) }, decide: { limiter.decide($0) }, peek: { limiter.peek($0) },
        charge: { limiter.charge($0) }, refund: { limiter.refund($0) }, reset: { limiter.reset() },
        block: { limiter.block(for: $0) }, reserve: { limiter.reserve($0) }, retryAfter: { limiter.retryAfter($0) })
    }

    static func keyed(_ limiter: KeyedRateLimiter<String>, _ key: String = "k") -> Subject {
      Subject(
        tryAcquire: { limiter.tryAcquire($0, for: key) }, decide: { limiter.decide($0, for: key) },
        peek: { limiter.peek($0, for: key) }, charge: { limiter.charge($0, for: key) },
        refund: { limiter.refund($0, for: key) }, reset: { limiter.reset(key) },
        block: { limiter.block(key, for: $0) }, reserve: { limiter.reserve($0, for: key) },
        retryAfter: { limiter.retryAfter($0, for: key) })
    }
  }

  enum Kind: String, CaseIterable, CustomTestStringConvertible {
    case single, keyed
    var testDescription: String { rawValue }
  }

  static func window(_ kind: Kind, limit: Int, per window: Duration, clock: ManualClock) -> Subject {
    kind == .single
      ? .single(RateLimiter(limit: limit, per: window, clock: clock))
      : .keyed(KeyedRateLimiter(limit: limit, per: window, clock: clock))
  }

  static func bucket(_ kind: Kind, limit: Int, per window: Duration, burst: Int, clock: ManualClock) -> Subject {
    kind == .single
      ? .single(RateLimiter(limit: limit, per: window, burst: burst, clock: clock))
      : .keyed(KeyedRateLimiter(limit: limit, per: window, burst: burst, clock: clock))
  }

  @Test(arguments: Kind.allCases)
  func peekIsDecideTakingNothing(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Self.window(kind, limit: 5, per: .seconds(60), clock: clock)
    let peeked = limiter.peek(1)
    #expect(peeked.isGranted && peeked.remaining == 4 && peeked.retryAfter == nil)
    #expect(limiter.peek(1) == peeked)
    #expect(limiter.decide(1) == peeked)
    #expect(limiter.tryAcquire(4))
    let refused = limiter.peek(1)
    #expect(!refused.isGranted && refused.remaining == 0 && refused.retryAfter == .seconds(60))
    #expect(limiter.decide(1) == refused)
    #expect(limiter.peek(6).retryAfter == nil)
  }

  /// A window's effective window runs from the oldest booking that still holds permits: bookings a refund
  /// emptied (kept in the log until they reach its front) said 1 s instead of 10 s. Found by
  /// `WindowOperationsModelTests`; PostgreSQL drops emptied bookings at once, so it answered 10 s.
  @Test(arguments: Kind.allCases)
  func aRefundsEmptiedBookingsAreNotTheOldestInTheWindow(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Self.window(kind, limit: 3, per: .seconds(10), clock: clock)
    #expect(limiter.tryAcquire(1))
    clock.advance(to: .seconds(1))
    #expect(limiter.tryAcquire(2))
    #expect(limiter.reserve(1)?.time == .seconds(10))
    #expect(limiter.refund(3).remaining == 0)  // the booking at 10 s is ahead
    clock.advance(to: .seconds(10))
    let peeked = limiter.peek(1)
    #expect(peeked.isGranted && peeked.remaining == 1)
    #expect(peeked.effectiveWindow == .seconds(10))
  }

  @Test(arguments: Kind.allCases)
  func aChargeGoesPastTheLimitAndIsPaidByTheRule(_ kind: Kind) {
    let clock = ManualClock()
    let window = Self.window(kind, limit: 5, per: .seconds(60), clock: clock)
    let charged = window.charge(7)
    #expect(charged.isGranted && charged.retryAfter == nil && charged.remaining == 0)
    #expect(window.decide(1).retryAfter == .seconds(60))
    clock.advance(to: .seconds(60))
    #expect(window.tryAcquire(5))

    let bucketClock = ManualClock()
    let bucket = Self.bucket(kind, limit: 1, per: .seconds(10), burst: 2, clock: bucketClock)
    #expect(bucket.charge(5).remaining == 0)
    // 3 permits of debt, then the one asked for: 40 s, longer than the window.
    #expect(bucket.decide(1).retryAfter == .seconds(40))
    #expect(bucket.charge(0).effectiveWindow == .seconds(40))
    bucketClock.advance(to: .seconds(39))
    #expect(!bucket.tryAcquire(1))
    bucketClock.advance(to: .seconds(40))
    #expect(bucket.tryAcquire(1))
  }

  @Test(arguments: Kind.allCases)
  func aChargeIsBehindNoOneAndAheadOfNoOne(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Self.window(kind, limit: 2, per: .seconds(10), clock: clock)
    #expect(limiter.tryAcquire(2))
    let ahead = limiter.reserve(1)
    #expect(ahead?.delay == .seconds(10))
    clock.advance(to: .seconds(1))
    _ = limiter.charge(1)
    // The booking ahead keeps its instant; cancelled, it gives back as if the charge had not been made.
    clock.advance(to: .seconds(2))
    ahead?.cancel()
    clock.advance(to: .seconds(10))
    // (0, 10] holds the charge at 1: one left (`peek` reports what is left after it).
    #expect(limiter.peek(1).isGranted && limiter.peek(1).remaining == 0)
    #expect(!limiter.tryAcquire(2))
    clock.advance(to: .seconds(11))
    #expect(limiter.tryAcquire(2))
  }

  @Test(arguments: Kind.allCases)
  func aRefundGivesBackTheLatestFirstNeverMoreThanTaken(_ kind: Kind) {
    let clock = ManualClock()
    let window = Self.window(kind, limit: 5, per: .seconds(60), clock: clock)
    for second in 0..<3 {
      clock.advance(to: .seconds(second))
      #expect(window.tryAcquire(1))
    }
    clock.advance(to: .seconds(3))
    let refunded = window.refund(2)
    #expect(refunded.isGranted && refunded.remaining == 4)
    // The booking at 0 is what is left: it leaves the window at 60.
    #expect(window.tryAcquire(4))
    #expect(window.decide(1).retryAfter == .seconds(57))
    #expect(window.refund(100).remaining == 5)
    #expect(window.refund(1).remaining == 5)

    let bucketClock = ManualClock()
    let bucket = Self.bucket(kind, limit: 1, per: .seconds(10), burst: 5, clock: bucketClock)
    #expect(bucket.tryAcquire(5))
    #expect(bucket.refund(2).remaining == 2)
    #expect(bucket.refund(10).remaining == 5)
  }

  @Test(arguments: Kind.allCases)
  func aResetForgetsTheTakenAndKeepsTheBookingsAhead(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Self.window(kind, limit: 2, per: .seconds(10), clock: clock)
    #expect(limiter.tryAcquire(2))
    let ahead = limiter.reserve(1)
    #expect(ahead?.delay == .seconds(10))
    clock.advance(to: .seconds(1))
    limiter.reset()
    // The booking ahead stays, and no one overtakes it.
    #expect(!limiter.tryAcquire(1))
    #expect(limiter.retryAfter(1) == .seconds(9))
    clock.advance(to: .seconds(10))
    #expect(limiter.peek(1).remaining == 0)
    #expect(limiter.tryAcquire(1))
    #expect(!limiter.tryAcquire(1))

    let bucketClock = ManualClock()
    let bucket = Self.bucket(kind, limit: 1, per: .seconds(10), burst: 3, clock: bucketClock)
    #expect(bucket.tryAcquire(3))
    _ = bucket.charge(4)
    bucket.block(.seconds(100))
    bucket.reset()
    #expect(bucket.peek(1).remaining == 2)
    #expect(bucket.tryAcquire(3))
  }

  @Test(arguments: Kind.allCases)
  func aReservationForgottenByAResetGivesNothingBack(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Self.bucket(kind, limit: 1, per: .seconds(10), burst: 1, clock: clock)
    let now = limiter.reserve(1)
    #expect(now?.delay == .zero)
    limiter.reset()
    now?.cancel()
    #expect(limiter.tryAcquire(1))
    #expect(!limiter.tryAcquire(1))
  }

  @Test(arguments: Kind.allCases)
  func aBlockRefusesTheKeyUntilItsEnd(_ kind: Kind) {
    let clock = ManualClock()
    let limiter = Self.window(kind, limit: 3, per: .seconds(10), clock: clock)
    limiter.block(.seconds(30))
    let blocked = limiter.peek(1)
    #expect(!blocked.isGranted && blocked.remaining == 0 && blocked.retryAfter == .seconds(30))
    #expect(blocked.resetAfter >= .seconds(30))
    #expect(!limiter.tryAcquire(1))
    #expect(limiter.reserve(1)?.delay == .seconds(30))
    clock.advance(to: .seconds(30))
    #expect(limiter.tryAcquire(2))
    #expect(!limiter.tryAcquire(1))
  }

  @Test func aBlockedKeyIsHeldUntilItsBlockEnds() {
    let clock = ManualClock()
    let limiter = KeyedRateLimiter<String>(limit: 3, per: .seconds(10), clock: clock)
    limiter.block("abuser", for: .seconds(3_600))
    #expect(limiter.count == 1)
    clock.advance(to: .seconds(3_599))
    #expect(limiter.count == 1)
    #expect(!limiter.tryAcquire(for: "abuser"))
    #expect(limiter.tryAcquire(for: "other"))
    clock.advance(to: .seconds(3_600))
    #expect(limiter.tryAcquire(for: "abuser"))
    clock.advance(to: .seconds(3_700))
    #expect(limiter.count == 0)
    // A zero window is blocked too.
    let unlimited = KeyedRateLimiter<String>(limit: 1, per: .zero, clock: clock)
    unlimited.block("k", for: .seconds(1))
    #expect(!unlimited.tryAcquire(for: "k"))
    #expect(unlimited.tryAcquire(for: "j"))
  }

  @Test func aRefundOfAForgottenKeyDoesNothing() {
    let limiter = KeyedRateLimiter<String>(limit: 3, per: .seconds(10), clock: ManualClock())
    #expect(limiter.refund(5, for: "nobody").remaining == 3)
    #expect(limiter.count == 0)
    limiter.reset("nobody")
    #expect(limiter.count == 0)
    #expect(limiter.peek(for: "nobody").remaining == 2)
    #expect(limiter.count == 0)
  }

  /// Random timelines of every operation: a key of `KeyedRateLimiter` answers as a `RateLimiter` of the same
  /// rule on the same clock, operation by operation (the keyed store packs, unpacks and forgets; the single one
  /// never does).
  @Test(arguments: [false, true])
  func randomTimelinesOfEveryOperationAnswerAlike(bucket: Bool) {
    var random = SeededGenerator(seed: bucket ? 412 : 42)
    var operations = 0
    for _ in 0..<200 {
      let clock = ManualClock()
      let limit = Int.random(in: 1...4, using: &random)
      let window = Duration.seconds(Int.random(in: 1...5, using: &random))
      let burst = Int.random(in: 1...4, using: &random)
      let single: RateLimiter
      let keyed: KeyedRateLimiter<String>
      if bucket {
        single = RateLimiter(limit: limit, per: window, burst: burst, clock: clock)
        keyed = KeyedRateLimiter(limit: limit, per: window, burst: burst, clock: clock)
      } else {
        single = RateLimiter(limit: limit, per: window, clock: clock)
        keyed = KeyedRateLimiter(limit: limit, per: window, clock: clock)
      }
      var reservations: [(RateLimiter.Reservation, RateLimiter.Reservation)] = []
      var log: [String] = []
      log.append("limit \(limit) per \(window) burst \(burst)")
      for _ in 0..<40 {
        let permits = Int.random(in: 1...(single.burst ?? single.limit), using: &random)
        let amount = Int.random(in: 0...(2 * (single.burst ?? single.limit)), using: &random)
        let operation = Int.random(in: 0..<12, using: &random)
        log.append(
          "\(clock.now.components.seconds).\(clock.now.components.attoseconds / 1_000_000_000_000_000):\(operation)/\(permits)/\(amount)"
        )
        switch operation {
        case 0: #expect(single.tryAcquire(permits) == keyed.tryAcquire(permits, for: "k"), "\(log)")
        case 1: #expect(single.decide(permits) == keyed.decide(permits, for: "k"), "\(log)")
        case 2: #expect(single.peek(permits) == keyed.peek(permits, for: "k"), "\(log)")
        case 3: #expect(single.charge(amount) == keyed.charge(amount, for: "k"), "\(log)")
        case 4: #expect(single.refund(amount) == keyed.refund(amount, for: "k"), "\(log)")
        case 5:
          single.reset()
          keyed.reset("k")
        case 6:
          let duration = Duration.milliseconds(Int.random(in: 0...8_000, using: &random))
          single.block(for: duration)
          keyed.block("k", for: duration)
        case 7:
          let a = single.reserve(permits, within: .seconds(20))
          let b = keyed.reserve(permits, for: "k", within: .seconds(20))
          #expect(a?.time == b?.time, "\(log)")
          if let a, let b { reservations.append((a, b)) }
        case 8:
          if !reservations.isEmpty {
            let (a, b) = reservations.remove(at: Int.random(in: 0..<reservations.count, using: &random))
            a.cancel()
            b.cancel()
          }
        case 9: #expect(single.retryAfter(permits) == keyed.retryAfter(permits, for: "k"), "\(log)")
        case 10:
          let newLimit = Int.random(in: 1...4, using: &random)
          let newWindow = Duration.seconds(Int.random(in: 0...5, using: &random))
          if bucket {
            let newBurst = Int.random(in: 1...4, using: &random)
            single.update(limit: newLimit, per: newWindow, burst: newBurst)
            keyed.update(limit: newLimit, per: newWindow, burst: newBurst)
          } else {
            single.update(limit: newLimit, per: newWindow)
            keyed.update(limit: newLimit, per: newWindow)
          }
          log.append("update \(newLimit) per \(newWindow)")
        default: clock.advance(by: .milliseconds(Int.random(in: 0...3_000, using: &random)))
        }
        operations += 1
      }
      #expect(single.peek(1) == keyed.peek(1, for: "k"))
    }
    #expect(operations == 8_000)
  }
}

#if os(macOS) || os(Linux) || os(Windows)
  @Suite struct OperationPreconditionTests {
    @Test func aNegativeChargeTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        RateLimiter(limit: 1, per: .seconds(1)).charge(-2)
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("RateLimiter: permits must not be negative, got permits: -2"), "\(message)")
    }

    @Test func aNegativeRefundTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        KeyedRateLimiter<String>(limit: 1, per: .seconds(1)).refund(-1, for: "k")
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("KeyedRateLimiter: permits must not be negative, got permits: -1"), "\(message)")
    }

    @Test func aNegativeKeyedBlockTraps() async {
      await #expect(processExitsWith: .failure) {
        KeyedRateLimiter<String>(limit: 1, per: .seconds(1)).block("k", for: .seconds(-1))
      }
    }
  }
#endif
