import RateLimitStoreKit
import Testing

@testable import RateLimit

/// A token bucket's `update` on a `KeyedRateLimiter` costs O(1) however many keys are held (SPEC 4.2: "keys
/// settle when next used"): it visits no key, and each key is brought under it once, when next read. The answers
/// stay those of one `RateLimiter` per key, with clocks that read the same instant twice or step back.
@Suite struct LazyUpdateTests {
  @Test func aBucketUpdateVisitsNoKeyAndEachKeyOnceLater() {
    let clock = ManualClock()
    let keyed = KeyedRateLimiter<Int>(limit: 10, per: .seconds(10), burst: 10, clock: clock)
    for key in 0..<1_000 { #expect(keyed.tryAcquire(4, for: key)) }
    clock.advance(by: .seconds(1))  // 7 each
    keyed.update(limit: 20, per: .seconds(10), burst: 5)
    #expect(keyed.statesAdopted == 0)
    for key in 0..<1_000 {
      #expect(keyed.peek(5, for: key).isGranted)  // 7, capped by the new burst
      #expect(!keyed.peek(6, for: key).isGranted)
    }
    // Each key once, whether its own call or a sweep step brought it; then the update is kept no more.
    #expect(keyed.statesAdopted == 1_000)
    #expect(keyed.pendingUpdates == 0)
    #expect(keyed.tryAcquire(5, for: 3))
    #expect(keyed.retryAfter(1, for: 3) == .milliseconds(500))  // 20 per 10 s
    #expect(keyed.statesAdopted == 1_000)
  }

  @Test func anUpdateAtTheInstantOfTheLastReadingVisitsEveryKey() {
    // A key written at that instant could be from before the update or after it: converted at once.
    let clock = ManualClock()
    let keyed = KeyedRateLimiter<Int>(limit: 10, per: .seconds(10), burst: 10, clock: clock)
    for key in 0..<10 { #expect(keyed.tryAcquire(4, for: key)) }
    keyed.update(limit: 20, per: .seconds(10), burst: 5)
    #expect(keyed.statesAdopted == 10)
    for key in 0..<10 { #expect(keyed.peek(5, for: key).isGranted) }
    #expect(keyed.statesAdopted == 10)
  }

  @Test func aBlockedKeyWrittenAtItsBlocksEndIsConvertedAtTheUpdate() {
    let clock = ManualClock()
    let keyed = KeyedRateLimiter<String>(limit: 1, per: .seconds(1), burst: 4, clock: clock)
    let single = RateLimiter(limit: 1, per: .seconds(1), burst: 4, clock: clock)
    keyed.block("b", for: .seconds(10))
    single.block(for: .seconds(10))
    #expect(keyed.reserve(3, for: "b")?.time == single.reserve(3)?.time)  // written at 10 s
    clock.advance(by: .seconds(1))
    keyed.update(limit: 1, per: .seconds(2), burst: 2)
    single.update(limit: 1, per: .seconds(2), burst: 2)
    #expect(keyed.statesAdopted == 1)
    clock.advance(by: .seconds(12))
    #expect(keyed.decide(2, for: "b") == single.decide(2))
  }

  @Test func manyUpdatesWithoutTrafficKeepAFewAtMost() {
    let clock = ManualClock()
    let keyed = KeyedRateLimiter<Int>(limit: 10, per: .seconds(10), burst: 10, clock: clock)
    for key in 0..<3 { #expect(keyed.tryAcquire(10, for: key)) }
    for step in 1...100 {
      clock.advance(by: .milliseconds(1))
      keyed.update(limit: 10 + step % 2, per: .seconds(10), burst: 10)
    }
    #expect(keyed.pendingUpdates <= PendingUpdates<TokenBucket>.most)
    clock.advance(by: .seconds(1))
    #expect(keyed.peek(1, for: 0).isGranted)
  }

  /// Random timelines on several keys, with a clock that often moves a nanosecond (the update kept for later)
  /// and sometimes not at all (visited at once): every key answers as its own `RateLimiter`.
  @Test func randomTimelinesAnswerAsOneRateLimiterPerKey() {
    Self.timelines(seed: 2_026, count: 150, stepsBack: false) { clock, limit, window, burst in
      let singles = (0..<4).map { _ in RateLimiter(limit: limit, per: window, burst: burst, clock: clock) }
      return Side(
        subject: { .single(singles[$0]) },
        update: { l, w, b in singles.forEach { $0.update(limit: l, per: w, burst: b) } })
    }
  }

  /// The same with a clock that also steps back (which brings every key under the updates kept, at once),
  /// against a `KeyedRateLimiter` whose updates visit every key at once.
  @Test func randomTimelinesWithStepsBackAnswerAsVisitingEveryKeyAtOnce() {
    Self.timelines(seed: 4_202, count: 300, stepsBack: true) { clock, limit, window, burst in
      let atOnce = KeyedRateLimiter<String>(limit: limit, per: window, burst: burst, clock: clock)
      atOnce.visitKeysAtUpdate()
      return .keyed(atOnce)
    }
  }

  /// `count` timelines of a `KeyedRateLimiter` bucket against the reference `makeReference` gives for the same
  /// parameters and clock.
  static func timelines(
    seed: UInt64, count: Int, stepsBack: Bool,
    _ makeReference: (SettableClock, Int, Duration, Int) -> Side
  ) {
    var random = SeededGenerator(seed: seed)
    for _ in 0..<count {
      let clock = SettableClock()
      let (limit, window, burst) = parameters(&random)
      let keyed = KeyedRateLimiter<String>(limit: limit, per: window, burst: burst, clock: clock)
      play(
        &random, clock: clock, capacity: burst, stepsBack: stepsBack,
        reference: makeReference(clock, limit, window, burst), subject: .keyed(keyed))
    }
  }

  struct Side {
    let subject: (Int) -> OperationsTests.Subject
    let update: (Int, Duration, Int) -> Void

    /// Key `k` of `limiter` as "k".
    static func keyed(_ limiter: KeyedRateLimiter<String>) -> Side {
      Side(subject: { .keyed(limiter, "\($0)") }, update: { limiter.update(limit: $0, per: $1, burst: $2) })
    }
  }

  static func parameters(_ random: inout SeededGenerator) -> (Int, Duration, Int) {
    (
      Int.random(in: 1...4, using: &random), .seconds(Int.random(in: 1...5, using: &random)),
      Int.random(in: 1...4, using: &random)
    )
  }

  /// 60 random operations on keys 0 to 3 of both sides, every answer compared.
  static func play(
    _ random: inout SeededGenerator, clock: SettableClock, capacity: Int, stepsBack: Bool, reference: Side,
    subject: Side
  ) {
    clock.now = .seconds(100)
    var capacity = capacity
    var reservations: [(RateLimiter.Reservation, RateLimiter.Reservation)] = []
    var log: [String] = []
    for _ in 0..<60 {
      let key = Int.random(in: 0..<4, using: &random)
      let (a, b) = (reference.subject(key), subject.subject(key))
      let permits = Int.random(in: 1...capacity, using: &random)
      let amount = Int.random(in: 0...(2 * capacity), using: &random)
      let operation = Int.random(in: 0..<14, using: &random)
      log.append("\(clock.now) key \(key): \(operation)/\(permits)/\(amount)")
      switch operation {
      case 0: #expect(a.tryAcquire(permits) == b.tryAcquire(permits), "\(log)")
      case 1: #expect(a.decide(permits) == b.decide(permits), "\(log)")
      case 2: #expect(a.peek(permits) == b.peek(permits), "\(log)")
      case 3: #expect(a.charge(amount) == b.charge(amount), "\(log)")
      case 4: #expect(a.refund(amount) == b.refund(amount), "\(log)")
      case 5:
        a.reset()
        b.reset()
      case 6:
        let duration = Duration.milliseconds(Int.random(in: 0...8_000, using: &random))
        a.block(duration)
        b.block(duration)
      case 7:
        let first = a.reserve(permits)
        let second = b.reserve(permits)
        #expect(first?.time == second?.time, "\(log)")
        if let first, let second { reservations.append((first, second)) }
      case 8:
        if !reservations.isEmpty {
          let (first, second) = reservations.remove(at: Int.random(in: 0..<reservations.count, using: &random))
          first.cancel()
          second.cancel()
        }
      case 9, 10:
        let newLimit = Int.random(in: 1...4, using: &random)
        let newWindow = Duration.seconds(Int.random(in: 1...5, using: &random))
        capacity = Int.random(in: 1...4, using: &random)
        reference.update(newLimit, newWindow, capacity)
        subject.update(newLimit, newWindow, capacity)
        log.append("update \(newLimit) per \(newWindow) burst \(capacity)")
      case 11:
        let step = Duration.milliseconds(Int.random(in: 1...3_000, using: &random))
        if stepsBack { clock.now -= step } else { clock.now += step }
      case 12: clock.now += .milliseconds(Int.random(in: 1...3_000, using: &random))
      default: break  // the same instant again
      }
      // Mostly a nanosecond on: the next update is kept for later.
      if Int.random(in: 0..<4, using: &random) != 0 { clock.now += .nanoseconds(1) }
    }
    for key in 0..<4 { #expect(reference.subject(key).peek(1) == subject.subject(key).peek(1), "\(log)") }
  }
}
