import RateLimitStoreKit
import Testing

@testable import RateLimit

/// SPEC 4.2's operations on a token bucket against ``BucketModel`` (Go's algorithm in plain integers) with the
/// operations written from the SPEC's sentences, on random timelines (seeded; the seed is printed; set
/// `RATELIMIT_TIMELINE_SEED` to replay one): `RateLimiter` and a key of `KeyedRateLimiter` give every answer the
/// model gives, and `decide`, `peek`, `charge` and `refund` report what the SPEC defines (`remaining`: the most a
/// `tryAcquire` would get now; `resetAfter`: until full with nothing booked at or after now; `effectiveWindow`:
/// after taking `remaining`, the wait for one more), blocks included (a booking made during a block is made as
/// at its end, and the bucket then counts from there).
@Suite struct BucketOperationsModelTests {
  static let timelines = 2_000

  @Test func operationsMatchTheModel() {
    let seed = TestEnvironment.integer("RATELIMIT_TIMELINE_SEED") ?? UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    for _ in 0..<Self.timelines {
      let limit = Int64.random(in: 1...4, using: &generator)
      let window: Int64 = [20, 1_000, 2_000].randomElement(using: &generator)!  // ms
      let burst = Int.random(in: 1...4, using: &generator)
      let clock = SettableClock()
      let one = RateLimiter(limit: Int(limit), per: .milliseconds(window), burst: burst, clock: clock)
      let keyed = KeyedRateLimiter<String>(limit: Int(limit), per: .milliseconds(window), burst: burst, clock: clock)
      var model = BucketModel(limit: limit, window: window * 1_000_000, burst: burst)
      var reservations: [(one: RateLimiter.Reservation, keyed: RateLimiter.Reservation, BucketModel.Booking)] = []
      var now: Int64 = 0
      var log = ["seed \(seed): \(limit) per \(window) ms, burst \(burst)"]
      for _ in 0..<40 {
        let n = Int.random(in: 1...burst + 1, using: &generator)
        let step = Int.random(in: 0..<12, using: &generator)
        log.append("\(now / 1_000_000) ms: step \(step), \(n)")
        switch step {
        case 0, 1:
          now += Int64.random(in: 0...(window * 7 / 10), using: &generator) * 1_000_000
          clock.now = .nanoseconds(now)
        case 2:
          let expected = model.decide(n, at: now)
          log.append("decide \(expected)")
          #expect(WindowOperationsModelTests.report(one.peek(n)) == expected, "\(log)")
          #expect(WindowOperationsModelTests.report(keyed.peek(n, for: "a")) == expected, "\(log)")
          #expect(WindowOperationsModelTests.report(one.decide(n)) == expected, "\(log)")
          #expect(WindowOperationsModelTests.report(keyed.decide(n, for: "a")) == expected, "\(log)")
        case 3, 4:
          let within = Bool.random(using: &generator) ? nil : Int64.random(in: 0...2_000, using: &generator)
          let expected = model.book(n, at: now, within: within.map { $0 * 1_000_000 })
          let maxDelay = within.map { Duration.milliseconds($0) }
          let (first, second) = (one.reserve(n, within: maxDelay), keyed.reserve(n, for: "a", within: maxDelay))
          log.append("within \(String(describing: within)): \(String(describing: expected?.time))")
          #expect(first.map { Nanoseconds.roundingUp($0.time) } == expected?.time, "\(log)")
          #expect(second.map { Nanoseconds.roundingUp($0.time) } == expected?.time, "\(log)")
          if let first, let second, let expected { reservations.append((first, second, expected)) }
        case 5:
          guard !reservations.isEmpty else { continue }
          let reservation = reservations[Int.random(in: 0..<reservations.count, using: &generator)]
          log.append("cancel \(reservation.2.id)")
          reservation.one.cancel()
          reservation.keyed.cancel()
          model.cancelDuringBlock(reservation.2, at: now)
        case 6, 7:
          let amount = Int.random(in: 0...2 * burst, using: &generator)
          let charging = step == 6
          log.append("\(charging ? "charge" : "refund") \(amount)")
          let reports =
            charging
            ? (one.charge(amount), keyed.charge(amount, for: "a"))
            : (one.refund(amount), keyed.refund(amount, for: "a"))
          if charging { model.charge(amount, at: now) } else { model.refund(amount, at: now) }
          var expected = model.report(1, granted: true, at: now)
          expected.retryAfter = nil
          let got = (WindowOperationsModelTests.report(reports.0), WindowOperationsModelTests.report(reports.1))
          #expect(got.0 == expected && got.1 == expected, "\(log) \(got) \(expected)")
        case 8:
          one.reset()
          keyed.reset("a")
          model.reset(at: now)
        case 9 where Bool.random(using: &generator):
          let duration = Int64.random(in: 0...(window * 2), using: &generator)
          log.append("block \(duration) ms")
          one.block(for: .milliseconds(duration))
          keyed.block("a", for: .milliseconds(duration))
          model.block(for: duration * 1_000_000, at: now)
        default:
          let expected = model.retryAfter(n, at: now).map { Duration.nanoseconds($0) }
          log.append("retryAfter \(String(describing: expected))")
          #expect(one.retryAfter(n) == expected, "\(log)")
          #expect(keyed.retryAfter(n, for: "a") == expected, "\(log)")
        }
      }
    }
    print("BucketOperationsModelTests: \(Self.timelines) timelines, seed \(seed)")
  }
}

/// SPEC 4.2's operations and `decide`'s report on ``BucketModel``.
extension BucketModel {
  var full: Int64 { Int64(burst) * window }

  /// Bookings not yet granted, and not cancelled.
  func ahead(of now: Int64) -> [Booking] {
    live.filter { $0.time > now && !cancelled.contains($0.id) }
  }

  /// `reserve(n)` now: during a block, as the same request made at its end, within `maxDelay` of now.
  mutating func book(_ n: Int, at now: Int64, within: Int64?) -> Booking? {
    let start = max(now, blockedUntil)
    if let within, start > now + within { return nil }
    return reserve(n, at: start, within: within.map { now + $0 - start }, listed: true)
  }

  /// `retryAfter(n)`: the delay `reserve(n)` would give now.
  func retryAfter(_ n: Int, at now: Int64) -> Int64? {
    var copy = self
    return copy.book(n, at: now, within: nil).map { $0.time - now }
  }

  mutating func tryAcquire(_ n: Int, at now: Int64) -> Bool {
    guard now >= blockedUntil else { return false }
    return reserve(n, at: now, within: 0, listed: false) != nil
  }

  /// Refuses until `now + duration`; a block that ends earlier changes nothing.
  mutating func block(for duration: Int64, at now: Int64) {
    if duration > 0 { blockedUntil = max(blockedUntil, now + duration) }
  }

  /// `cancel()` during a block: a bucket that a booking made during it brought up to the block's end takes the
  /// credit back there (SPEC 4.2 leaves the instant open; the core's choice, as PostgreSQL's).
  mutating func cancelDuringBlock(_ booking: Booking, at now: Int64) {
    guard now < blockedUntil, last > now else { return cancel(booking, at: now) }
    cancel(booking, at: now, restoringAt: max(now, min(last, blockedUntil)))
  }

  mutating func decide(_ n: Int, at now: Int64) -> WindowOperationsModelTests.Model.Report {
    let granted = tryAcquire(n, at: now)
    return report(n, granted: granted, at: now)
  }

  /// Takes `n` at now whatever the limit: the credit goes below zero. At the bucket's `last` if later (a
  /// booking made during a block counted the credit up to the block's end).
  mutating func charge(_ n: Int, at now: Int64) {
    guard n > 0 else { return }
    let instant = max(now, last)
    tokens = advance(instant) - Int64(n) * window
    last = instant
  }

  /// Up to `n` back, never above a full bucket less the permits booked ahead.
  mutating func refund(_ n: Int, at now: Int64) {
    guard n > 0 else { return }
    let instant = max(now, last)
    let ceiling = full - Int64(ahead(of: now).map(\.permits).reduce(0, +)) * window
    let current = advance(instant)
    let raised = min(current + Int64(n) * window, ceiling)
    guard current < raised else { return }
    tokens = raised
    last = instant
  }

  /// A full bucket less the bookings ahead; what was booked at or before now is forgotten (cancelling it gives
  /// nothing back).
  mutating func reset(at now: Int64) {
    for booking in live where booking.time <= now { cancelled.insert(booking.id) }
    let ahead = ahead(of: now)
    tokens = full - Int64(ahead.map(\.permits).reduce(0, +)) * window
    last = now
    if ahead.isEmpty { lastEvent = .min }
    blockedUntil = .min
  }

  func report(_ n: Int, granted: Bool, at now: Int64) -> WindowOperationsModelTests.Model.Report {
    let remaining = (0...burst).last { p in
      var copy = self
      return p == 0 || copy.tryAcquire(p, at: now)
    }!
    // At rest once full, with nothing booked at or after now, and not before a block ends (counted from
    // there: a booking made during the block counted the credit up to its end).
    let from = now < blockedUntil ? blockedUntil : now
    let credit = advance(from)
    var rest = credit >= full ? from : from + (full - credit + limit - 1) / limit
    let latest = live.filter { $0.time >= now && !cancelled.contains($0.id) }.map(\.time).max()
    if let latest { rest = max(rest, latest + 1) }
    rest = max(rest, blockedUntil)
    var copy = self
    if remaining > 0 { _ = copy.tryAcquire(remaining, at: now) }
    return WindowOperationsModelTests.Model.Report(
      isGranted: granted, remaining: remaining, resetAfter: rest - now,
      retryAfter: granted ? nil : retryAfter(n, at: now), effectiveWindow: copy.retryAfter(1, at: now)!)
  }
}
