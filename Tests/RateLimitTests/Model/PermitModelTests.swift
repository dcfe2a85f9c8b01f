import RateLimitStoreKit
import Testing

@testable import RateLimit

/// The permit rules against independent reference models, on random timelines (seeded; the seed is printed).
/// The window's model finds the earliest instant by brute force over every candidate; the bucket's is Go's
/// algorithm written plainly in 64-bit integers (small rates, so nothing overflows), with the SPEC's two
/// exceptions. Every outcome is compared, and for the window, no window of length T may ever hold more than N.
@Suite struct PermitModelTests {
  static let timelines = 3_000

  /// One random step of a timeline.
  enum Step {
    case advance(Int64)  // ms
    case tryAcquire(Int)
    case reserve(Int, within: Int64?)  // ms
    case cancel(Int)  // which reservation, by index
    /// Moves the clock to a recent reservation's booked instant, if it is ahead, and cancels it there: the
    /// boundary of `cancel()` (SPEC 3.1), which random advances almost never hit.
    case cancelAtItsTime(Int)  // which reservation, counted back from the latest
  }

  /// Steps move the clock by up to `maxAdvance` ms.
  static func randomTimeline(
    _ generator: inout some RandomNumberGenerator, capacity: Int, maxAdvance: Int64 = 700
  ) -> [Step] {
    (0..<40).map { _ in
      switch Int.random(in: 0..<10, using: &generator) {
      case 0..<3: .advance(Int64.random(in: 0...maxAdvance, using: &generator))
      case 3..<5: .tryAcquire(Int.random(in: 1...capacity + 1, using: &generator))
      case 5..<8:
        .reserve(
          Int.random(in: 1...capacity + 1, using: &generator),
          within: Bool.random(using: &generator) ? nil : Int64.random(in: 0...2_000, using: &generator))
      case 8: .cancelAtItsTime(Int.random(in: 0..<3, using: &generator))
      default: .cancel(Int.random(in: 0..<8, using: &generator))
      }
    }
  }

  @Test func slidingWindowMatchesTheBruteForceModel() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    for _ in 0..<Self.timelines {
      let limit = Int.random(in: 1...4, using: &generator)
      let window = Int64.random(in: 1...4, using: &generator) * 250  // ms
      let clock = SettableClock()
      let limiter = RateLimiter(limit: limit, per: .milliseconds(window), clock: clock)
      var model = WindowModel(limit: limit, window: window * 1_000_000)
      var reservations: [(RateLimiter.Reservation, Int)] = []
      var now: Int64 = 0
      for step in Self.randomTimeline(&generator, capacity: limit) {
        switch step {
        case .advance(let ms):
          now += ms * 1_000_000
          clock.now = .nanoseconds(now)
        case .cancelAtItsTime(let back):
          guard back < reservations.count else { continue }
          let (reservation, id) = reservations[reservations.count - 1 - back]
          now = max(now, Nanoseconds.roundingUp(reservation.time))
          clock.now = .nanoseconds(now)
          reservation.cancel()
          model.cancel(id, at: now)
        case .tryAcquire(let n):
          let expected = model.tryAcquire(n, at: now)
          #expect(limiter.tryAcquire(n) == expected, "seed \(seed)")
        case .reserve(let n, let within):
          let maxDelay = within.map { Duration.milliseconds($0) }
          let expected = model.reserve(n, at: now, within: within.map { $0 * 1_000_000 })
          let got = limiter.reserve(n, within: maxDelay)
          #expect(got.map { Nanoseconds.roundingUp($0.time) } == expected?.time, "seed \(seed)")
          if let got, let expected { reservations.append((got, expected.id)) }
          #expect(limiter.retryAfter(1) == .nanoseconds(model.earliest(1, at: now) - now), "seed \(seed)")
        case .cancel(let index):
          guard index < reservations.count else { continue }
          reservations[index].0.cancel()
          model.cancel(reservations[index].1, at: now)
        }
        #expect(model.maxInAnyWindow <= limit, "seed \(seed)")
      }
    }
    print("PermitModelTests: sliding window, \(Self.timelines) timelines, seed \(seed)")
  }

  @Test func tokenBucketMatchesGosAlgorithm() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    for _ in 0..<Self.timelines {
      let limit = Int64.random(in: 1...4, using: &generator)
      // 20 ms: a permit every 5 to 20 ms, so that bookings pile up behind each other within a timeline's steps.
      let window: Int64 = [20, 1_000, 2_000, 3_000].randomElement(using: &generator)!  // ms
      let burst = Int.random(in: 1...4, using: &generator)
      let clock = SettableClock()
      let limiter = RateLimiter(limit: Int(limit), per: .milliseconds(window), burst: burst, clock: clock)
      var model = BucketModel(limit: limit, window: window * 1_000_000, burst: burst)
      var reservations: [(RateLimiter.Reservation, BucketModel.Booking)] = []
      var now: Int64 = 0
      for step in Self.randomTimeline(&generator, capacity: burst, maxAdvance: window * 7 / 10) {
        switch step {
        case .advance(let ms):
          now += ms * 1_000_000
          clock.now = .nanoseconds(now)
        case .cancelAtItsTime(let back):
          guard back < reservations.count else { continue }
          let (reservation, booking) = reservations[reservations.count - 1 - back]
          now = max(now, booking.time)
          clock.now = .nanoseconds(now)
          reservation.cancel()
          model.cancel(booking, at: now)
        case .tryAcquire(let n):
          #expect(limiter.tryAcquire(n) == (model.reserve(n, at: now, within: 0, listed: false) != nil), "seed \(seed)")
        case .reserve(let n, let within):
          let expected = model.reserve(n, at: now, within: within.map { $0 * 1_000_000 }, listed: true)
          let got = limiter.reserve(n, within: within.map { .milliseconds($0) })
          #expect(got.map { Nanoseconds.roundingUp($0.time) } == expected?.time, "seed \(seed)")
          if let got, let expected { reservations.append((got, expected)) }
        case .cancel(let index):
          guard index < reservations.count else { continue }
          reservations[index].0.cancel()
          model.cancel(reservations[index].1, at: now)
        }
      }
    }
    print("PermitModelTests: token bucket, \(Self.timelines) timelines, seed \(seed)")
  }

  /// `Wide` against `Duration`'s own 128-bit arithmetic (exact wherever it does not trap).
  @Test func wideArithmeticIsExact() {
    var generator = SeededGenerator(seed: 42)
    for _ in 0..<20_000 {
      let a = Int64.random(in: Int64.min / 4...Int64.max / 4, using: &generator)
      let b = Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &generator)
      let product = Wide.product(a, b)
      let duration = Duration(_high: product.high, low: product.low)
      #expect(duration == Duration(_high: a < 0 ? -1 : 0, low: UInt64(bitPattern: a)) * Int(b))
      let sum = Wide.product(a, 3) + Wide.product(b, 5)
      #expect(Duration(_high: sum.high, low: sum.low) == duration * 0 + Self.wide(a) * 3 + Self.wide(b) * 5)
      let divisor = Int64.random(in: 1...1_000_000_000, using: &generator)
      let positive = Wide.product(abs(a) / 2, Int64.random(in: 0...1_000, using: &generator))
      let exact = Duration(_high: positive.high, low: positive.low)
      let quotient = exact / Int(divisor)
      let up = quotient * Int(divisor) == exact ? quotient : quotient + Self.wide(1)
      #expect(positive.dividedRoundingUp(by: divisor) == Int64(up._low))
      #expect(positive.dividedRoundingDown(by: divisor) == Int64(quotient._low))
    }
    #expect(Wide.max + Wide(1) == .max)
    #expect(Wide.min - Wide(1) == .min)
    #expect(Wide.product(.max, .max).dividedRoundingUp(by: 1) == .max)
    #expect(Wide(10).dividedRoundingUp(by: 1) == 10)
    #expect(Wide(10).dividedRoundingUp(by: 3) == 4)
  }

  static func wide(_ value: Int64) -> Duration { Duration(_high: value < 0 ? -1 : 0, low: UInt64(bitPattern: value)) }
}

/// The sliding window by brute force: every booking kept; the earliest instant is the least candidate (now, the
/// latest booking, or a booking's time + T) that satisfies the rule.
struct WindowModel {
  let limit: Int
  let window: Int64
  var bookings: [(time: Int64, permits: Int, id: Int)] = []
  var nextID = 0

  func permits(in start: Int64, _ end: Int64) -> Int {
    bookings.filter { $0.time > start && $0.time <= end }.map(\.permits).reduce(0, +)
  }

  func earliest(_ n: Int, at now: Int64) -> Int64 {
    let floor = max(now, bookings.map(\.time).max() ?? now)
    let candidates = ([floor] + bookings.map { $0.time + window }).filter { $0 >= floor }.sorted()
    return candidates.first { permits(in: $0 - window, $0) + n <= limit }!
  }

  mutating func tryAcquire(_ n: Int, at now: Int64) -> Bool {
    reserve(n, at: now, within: 0) != nil
  }

  mutating func reserve(_ n: Int, at now: Int64, within: Int64?) -> (time: Int64, id: Int)? {
    guard n <= limit else { return nil }
    let time = earliest(n, at: now)
    if let within, time > now + within { return nil }
    nextID += 1
    bookings.append((time, n, nextID))
    return (time, nextID)
  }

  mutating func cancel(_ id: Int, at now: Int64) {
    guard let index = bookings.firstIndex(where: { $0.id == id }), now <= bookings[index].time else { return }
    bookings.remove(at: index)
  }

  /// The most permits in any window of length T that ends at a booking.
  var maxInAnyWindow: Int {
    bookings.map { permits(in: $0.time - window, $0.time) }.max() ?? 0
  }
}

/// Go's token bucket in plain integers: credit in nanosecond-permits (a permit is worth T; a nanosecond adds N).
/// With the SPEC's first come, first served, a booking's instant (`time`) may be later than the bucket's own
/// (SPEC 3.1): that later instant is Go's `timeToAct` and `lastEvent`.
struct BucketModel {
  struct Booking {
    let time: Int64
    let permits: Int
    let id: Int
  }

  let limit: Int64
  let window: Int64
  let burst: Int
  var tokens: Int64
  var last: Int64 = .min
  var lastEvent: Int64 = .min
  var live: [Booking] = []
  var cancelled: Set<Int> = []
  var nextID = 0
  /// SPEC 4.2's block (BucketOperationsModelTests).
  var blockedUntil: Int64 = .min

  init(limit: Int64, window: Int64, burst: Int) {
    self.limit = limit
    self.window = window
    self.burst = burst
    tokens = Int64(burst) * window
  }

  func advance(_ now: Int64) -> Int64 {
    let full = Int64(burst) * window
    if last == .min { return full }
    let elapsed = now - min(last, now)
    return min(full, tokens + elapsed * limit)
  }

  mutating func reserve(_ n: Int, at now: Int64, within: Int64?, listed: Bool) -> Booking? {
    guard n <= burst else { return nil }
    let after = advance(now) - Int64(n) * window
    let wait = after < 0 ? (-after + limit - 1) / limit : 0
    let bucketTime = now + wait
    let latest = live.filter { $0.time >= now && !cancelled.contains($0.id) }.map(\.time).max() ?? bucketTime
    let time = max(bucketTime, latest)
    if let within, time > now + within { return nil }
    last = now
    tokens = after
    lastEvent = time
    nextID += 1
    let booking = Booking(time: time, permits: n, id: nextID)
    if listed || time > now { live.append(booking) }
    return booking
  }

  /// `restoringAt`: the instant the credit comes back at, `now` unless a block moved the bucket past it
  /// (`BucketOperationsModelTests`).
  mutating func cancel(_ booking: Booking, at now: Int64, restoringAt instant: Int64? = nil) {
    let instant = instant ?? now
    guard now <= booking.time, !cancelled.contains(booking.id) else { return }
    cancelled.insert(booking.id)
    let restore = Int64(booking.permits) * window - (lastEvent - booking.time) * limit
    guard restore > 0 else { return }
    tokens = min(Int64(burst) * window, advance(instant) + restore)
    last = instant
    if booking.time == lastEvent {
      let previous = booking.time - Int64(booking.permits) * window / limit
      if previous >= instant { lastEvent = previous }
    }
  }
}
