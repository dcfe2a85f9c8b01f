import RateLimit
import RateLimitStoreKit
import Testing

/// `KeyedRateLimiter` against the rule that defines it: each key behaves exactly as its own `RateLimiter`. Random
/// timelines over a few keys (requests, reservations, cancels, retry-afters, the clock moving on and sometimes
/// back) run through one keyed limiter and through one `RateLimiter` per key; every answer must be the same. Keys
/// are forgotten and remembered, kept compact and kept whole, many times in each timeline.
@Suite struct KeyedReplayTests {
  struct Setup: CustomTestStringConvertible, Sendable {
    var limit: Int
    var window: Int64
    var burst: Int?
    var testDescription: String { "N = \(limit) per \(window) ns, burst \(burst.map(String.init) ?? "none")" }
  }

  static let setups = [
    Setup(limit: 1, window: 10, burst: nil), Setup(limit: 3, window: 20, burst: nil),
    Setup(limit: 6, window: 30, burst: nil),
    Setup(limit: 1, window: 10, burst: 1), Setup(limit: 3, window: 20, burst: 2), Setup(limit: 2, window: 7, burst: 4),
  ]

  @Test(arguments: setups)
  func eachKeyIsItsOwnRateLimiter(_ setup: Setup) {
    var generator = SeededGenerator(seed: UInt64(setup.limit * 1_000 + Int(setup.window)) + UInt64(setup.burst ?? 0))
    for _ in 0..<300 { replay(setup, &generator) { $0 } }
  }

  /// A key type of the user's own: the generic code path (`Int` and `String` keys run specialized code).
  struct Document: Hashable, Sendable {
    var number: Int
  }

  @Test(arguments: setups)
  func anyKeyTypeIsTheSame(_ setup: Setup) {
    var generator = SeededGenerator(seed: UInt64(setup.limit * 7 + Int(setup.window)) + UInt64(setup.burst ?? 0))
    for _ in 0..<100 { replay(setup, &generator) { Document(number: $0) } }
  }

  func replay<Key: Hashable & Sendable>(_ setup: Setup, _ generator: inout SeededGenerator, key: (Int) -> Key) {
    let keys = 4
    let window = Duration.nanoseconds(setup.window)
    let clock = SettableClock()
    let keyed =
      setup.burst.map { KeyedRateLimiter<Key>(limit: setup.limit, per: window, burst: $0, clock: clock) }
      ?? KeyedRateLimiter<Key>(limit: setup.limit, per: window, clock: clock)
    let clocks = (0..<keys).map { _ in SettableClock() }
    let references = clocks.map { clock in
      setup.burst.map { RateLimiter(limit: setup.limit, per: window, burst: $0, clock: clock) }
        ?? RateLimiter(limit: setup.limit, per: window, clock: clock)
    }
    let capacity = setup.burst ?? setup.limit
    var now: Int64 = 0
    var reservations: [(key: Int, keyed: RateLimiter.Reservation, reference: RateLimiter.Reservation)] = []
    var trace: [String] = []

    for _ in 0..<60 {
      let index = Int(generator.next() % UInt64(keys))
      // Mostly one permit (a keyed window keeps those small), sometimes up to capacity + 1 (refused for capacity).
      let permits = generator.next() % 3 != 0 ? 1 : 1 + Int(generator.next() % UInt64(capacity + 1))
      // Every reference limiter reads the clock whenever the keyed one does (not for a request over the capacity,
      // refused without reading it), so that all of them take in a step back at the same moment as the keyed
      // limiter, which takes it in for every key at once.
      func touchAll() {
        guard permits <= capacity else { return }
        for reference in references { _ = reference.retryAfter() }
      }
      switch generator.next() % 10 {
      case 0, 1:
        let step = Int64(generator.next() % UInt64(setup.window + 2))
        // Back only for windows. A token bucket key found full is forgotten; when the clock then goes back, Go's
        // arithmetic, which `RateLimiter` follows exactly, takes back refill earned since the key's last booking,
        // and a forgotten key has nothing to take it back from (the article "Choices where the rules are silent").
        now += setup.burst == nil && generator.next() % 8 == 0 ? -step : step
        clock.now = .nanoseconds(now)
        for reference in clocks { reference.now = .nanoseconds(now) }
        trace.append("at \(now)")
      case 2, 3, 4:
        touchAll()
        let granted = keyed.tryAcquire(permits, for: key(index))
        trace.append("tryAcquire(\(permits), for: \(index)) = \(granted)")
        #expect(granted == references[index].tryAcquire(permits), "\(trace)")
      case 5, 6:
        touchAll()
        let maxDelay: Duration? = generator.next() % 2 == 0 ? nil : .nanoseconds(Int64(generator.next() % 30))
        let booked = keyed.reserve(permits, for: key(index), within: maxDelay)
        let expected = references[index].reserve(permits, within: maxDelay)
        trace.append(
          "reserve(\(permits), for: \(index), within: \(String(describing: maxDelay))) = \(describe(booked))")
        #expect(describe(booked) == describe(expected), "\(trace)")
        if let booked, let expected { reservations.append((index, booked, expected)) }
      case 7, 8:
        guard !reservations.isEmpty else { continue }
        for reference in references { _ = reference.retryAfter() }
        let (owner, booked, expected) = reservations[Int(generator.next() % UInt64(reservations.count))]
        booked.cancel()
        expected.cancel()
        trace.append("cancel \(describe(booked)) for \(owner)")
      default:
        touchAll()
        let wait = keyed.retryAfter(permits, for: key(index))
        trace.append("retryAfter(\(permits), for: \(index)) = \(String(describing: wait))")
        #expect(wait == references[index].retryAfter(permits), "\(trace)")
      }
    }

    // Long after every booking, every key is fresh again: forgotten, and not counted.
    #expect(keyed.count <= keys, "\(trace)")
    clock.now = .nanoseconds(now + 1_000 * setup.window)
    #expect(keyed.count == 0, "\(trace)")
  }

  func describe(_ reservation: RateLimiter.Reservation?) -> String {
    reservation.map { "\($0.permits) at \($0.time), delay \($0.delay)" } ?? "nil"
  }
}
