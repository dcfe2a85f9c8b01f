import RateLimitStoreKit
import Testing

@testable import RateLimit

/// SPEC 4.2's operations on a sliding window against a model written from the SPEC's sentences, on random
/// timelines (seeded; the seed is printed): a `RateLimiter` a key and one `KeyedRateLimiter` for three keys give
/// every answer the model gives (`count` included), through updates the keyed limiter brings to each key lazily. The model keeps every booking in the order the log keeps them and finds the earliest instant
/// by brute force, as ``WindowModel`` does, and adds: a block (refused until its end; a booking made during it is
/// made as at its end), `charge` (a booking at now, behind those at or before now), `refund` (the bookings in the
/// window at or before now shrink, the latest first), `reset` (every booking at or before now goes, and the
/// block), and `cancel` at or before a booking's instant, during a block too. Set `RATELIMIT_TIMELINE_SEED` to
/// replay the seed a failure prints.
///
/// Found first: a booking made during a block forgot the bookings in the window ending at the block's end,
/// though still ahead now (both stores, PostgreSQL too): after `reset` lifted the block and the booking was
/// cancelled, `tryAcquire` overtook them (store kit: "a booking made during a block forgets nothing still ahead
/// now").
@Suite struct WindowOperationsModelTests {
  static let timelines = 2_000

  struct Model {
    struct Booking {
      var time: Int64
      var permits: Int
      /// -1: a charge, never cancelled.
      var id: Int
    }

    var limit: Int
    var window: Int64
    var bookings: [Booking] = []
    var blockedUntil: Int64 = .min
    var nextID = 0

    func permits(in start: Int64, _ end: Int64) -> Int {
      bookings.filter { $0.time > start && $0.time <= end }.map(\.permits).reduce(0, +)
    }

    /// The instant a request for `n` made now is booked for: not before the block's end, nor before a booking
    /// made earlier, and once the window then holds room for `n`.
    func earliest(_ n: Int, at now: Int64) -> Int64 {
      let floor = max(now, blockedUntil, bookings.map(\.time).max() ?? now)
      let candidates = ([floor] + bookings.map { $0.time + window }).filter { $0 >= floor }.sorted()
      return candidates.first { permits(in: $0 - window, $0) + n <= limit }!
    }

    mutating func tryAcquire(_ n: Int, at now: Int64) -> Bool {
      guard now >= blockedUntil else { return false }
      return reserve(n, at: now, within: 0) != nil
    }

    mutating func reserve(_ n: Int, at now: Int64, within: Int64?) -> (time: Int64, id: Int)? {
      guard n <= limit else { return nil }
      let time = earliest(n, at: now)
      if let within, time > now + within { return nil }
      nextID += 1
      bookings.append(Booking(time: time, permits: n, id: nextID))
      return (time, nextID)
    }

    func retryAfter(_ n: Int, at now: Int64) -> Int64? {
      n <= limit ? earliest(n, at: now) - now : nil
    }

    mutating func cancel(_ id: Int, at now: Int64) {
      guard let index = bookings.firstIndex(where: { $0.id == id }), now <= bookings[index].time else { return }
      bookings.remove(at: index)
    }

    mutating func charge(_ n: Int, at now: Int64) {
      guard n > 0 else { return }
      let position = bookings.lastIndex { $0.time <= now }.map { $0 + 1 } ?? 0
      bookings.insert(Booking(time: now, permits: n, id: -1), at: position)
    }

    mutating func refund(_ n: Int, at now: Int64) {
      var left = n
      for index in bookings.indices.reversed() where left > 0 {
        guard bookings[index].time <= now, bookings[index].time > now - window else { continue }
        let taken = min(left, bookings[index].permits)
        bookings[index].permits -= taken
        left -= taken
      }
      bookings.removeAll { $0.permits == 0 }
    }

    mutating func reset(at now: Int64) {
      bookings.removeAll { $0.time <= now }
      blockedUntil = .min
    }

    mutating func block(for duration: Int64, at now: Int64) {
      if duration > 0 { blockedUntil = max(blockedUntil, now + duration) }
    }

    /// The bookings held at the update, those in (now − old T, ∞), count against the new limit and window;
    /// those that had left the old window stay forgotten.
    mutating func update(limit: Int, window: Int64, at now: Int64) {
      bookings.removeAll { $0.time <= now - self.window }
      (self.limit, self.window) = (limit, window)
    }
    /// What `decide` reports after a decision that granted or not (SPEC, "Decisions: the rules", and 4.2's
    /// `effectiveWindow`), in nanoseconds.
    struct Report: Equatable {
      var isGranted: Bool
      var remaining: Int
      var resetAfter: Int64
      var retryAfter: Int64?
      var effectiveWindow: Int64
    }

    func report(_ permits: Int, granted: Bool, at now: Int64) -> Report {
      // The largest p that `tryAcquire(p)` would grant now.
      let remaining = (0...limit).last { p in
        var copy = self
        return p == 0 || copy.tryAcquire(p, at: now)
      }!
      // At rest once its last booking leaves the window, and not before a block ends.
      let rest = max(bookings.map { $0.time + window }.max() ?? now, blockedUntil, now)
      // On a copy, take `remaining` now: then the wait for one more.
      var copy = self
      if remaining > 0 { _ = copy.tryAcquire(remaining, at: now) }
      return Report(
        isGranted: granted, remaining: remaining, resetAfter: rest - now,
        retryAfter: granted ? nil : retryAfter(permits, at: now), effectiveWindow: copy.retryAfter(1, at: now)!)
    }

    mutating func decide(_ permits: Int, at now: Int64) -> Report {
      let granted = tryAcquire(permits, at: now)
      return report(permits, granted: granted, at: now)
    }
  }

  static func report(_ decision: RateLimitDecision) -> Model.Report {
    func nanoseconds(_ duration: Duration) -> Int64 { Nanoseconds.roundingUp(duration) }
    return Model.Report(
      isGranted: decision.isGranted, remaining: decision.remaining, resetAfter: nanoseconds(decision.resetAfter),
      retryAfter: decision.retryAfter.map(nanoseconds), effectiveWindow: nanoseconds(decision.effectiveWindow))
  }

  @Test func operationsMatchTheModel() {
    let seed = TestEnvironment.integer("RATELIMIT_TIMELINE_SEED") ?? UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    for _ in 0..<Self.timelines {
      let limit = Int.random(in: 1...4, using: &generator)
      let window = Int64.random(in: 1...4, using: &generator) * 250  // ms
      let clock = SettableClock()
      let keys = ["a", "b", "c"]
      // Each key: a `RateLimiter` of its own, and the model; one `KeyedRateLimiter` for all three.
      let ones = Dictionary(
        uniqueKeysWithValues: keys.map { ($0, RateLimiter(limit: limit, per: .milliseconds(window), clock: clock)) })
      let keyed = KeyedRateLimiter<String>(limit: limit, per: .milliseconds(window), clock: clock)
      var models = Dictionary(uniqueKeysWithValues: keys.map { ($0, Model(limit: limit, window: window * 1_000_000)) })
      var reservations: [(one: RateLimiter.Reservation, keyed: RateLimiter.Reservation, key: String, id: Int)] = []
      var now: Int64 = 0
      var log = ["seed \(seed): \(limit) per \(window) ms"]
      for _ in 0..<40 {
        let n = Int.random(in: 1...limit + 1, using: &generator)
        let step = Int.random(in: 0..<12, using: &generator)
        let key = keys.randomElement(using: &generator)!
        let one = ones[key]!
        var model = models[key]!
        defer { models[key] = model }
        log.append("\(now / 1_000_000) ms: \(key) step \(step), \(n)")
        switch step {
        case 0, 1:
          now += Int64.random(in: 0...700, using: &generator) * 1_000_000
          clock.now = .nanoseconds(now)
        case 2:
          if Bool.random(using: &generator) {
            let expected = model.tryAcquire(n, at: now)
            log.append("tryAcquire \(expected)")
            #expect(one.tryAcquire(n) == expected, "\(log)")
            #expect(keyed.tryAcquire(n, for: key) == expected, "\(log)")
          } else {
            log.append("bookings \(model.bookings.map { "\($0.time / 1_000_000):\($0.permits):\($0.id)" })")
            let expected = model.decide(n, at: now)
            log.append("decide \(expected)")
            #expect(Self.report(one.peek(n)) == expected, "\(log)")
            #expect(Self.report(keyed.peek(n, for: key)) == expected, "\(log)")
            #expect(Self.report(one.decide(n)) == expected, "\(log)")
            #expect(Self.report(keyed.decide(n, for: key)) == expected, "\(log)")
          }
        case 3, 4:
          let within = Bool.random(using: &generator) ? nil : Int64.random(in: 0...2_000, using: &generator)
          let expected = model.reserve(n, at: now, within: within.map { $0 * 1_000_000 })
          let maxDelay = within.map { Duration.milliseconds($0) }
          let (first, second) = (one.reserve(n, within: maxDelay), keyed.reserve(n, for: key, within: maxDelay))
          log.append("within \(String(describing: within)): \(String(describing: expected?.time))")
          #expect(first.map { Nanoseconds.roundingUp($0.time) } == expected?.time, "\(log)")
          #expect(second.map { Nanoseconds.roundingUp($0.time) } == expected?.time, "\(log)")
          if let first, let second, let expected { reservations.append((first, second, key, expected.id)) }
        case 5:
          guard !reservations.isEmpty else { continue }
          let reservation = reservations[Int.random(in: 0..<reservations.count, using: &generator)]
          log.append("cancel \(reservation.key) \(reservation.id)")
          reservation.one.cancel()
          reservation.keyed.cancel()
          if reservation.key == key {
            model.cancel(reservation.id, at: now)
          } else {
            models[reservation.key]!.cancel(reservation.id, at: now)
          }
        case 6, 7:
          let amount = Int.random(in: 0...2 * limit, using: &generator)
          let charging = step == 6
          log.append("\(charging ? "charge" : "refund") \(amount)")
          let reports =
            charging
            ? (Self.report(one.charge(amount)), Self.report(keyed.charge(amount, for: key)))
            : (Self.report(one.refund(amount)), Self.report(keyed.refund(amount, for: key)))
          if charging { model.charge(amount, at: now) } else { model.refund(amount, at: now) }
          var expected = model.report(1, granted: true, at: now)
          expected.retryAfter = nil
          #expect(reports.0 == expected && reports.1 == expected, "\(log) \(reports) \(expected)")
        case 8:
          one.reset()
          keyed.reset(key)
          model.reset(at: now)
        case 9 where Int.random(in: 0..<4, using: &generator) == 0:
          let newLimit = Int.random(in: 1...4, using: &generator)
          let newWindow = Int64.random(in: 1...4, using: &generator) * 250
          log.append("update \(newLimit) per \(newWindow) ms")
          for other in keys { ones[other]!.update(limit: newLimit, per: .milliseconds(newWindow)) }
          keyed.update(limit: newLimit, per: .milliseconds(newWindow))
          model.update(limit: newLimit, window: newWindow * 1_000_000, at: now)
          for other in keys where other != key {
            models[other]!.update(limit: newLimit, window: newWindow * 1_000_000, at: now)
          }
        case 9:
          let duration = Int64.random(in: 0...1_500, using: &generator)
          log.append("block \(duration) ms")
          one.block(for: .milliseconds(duration))
          keyed.block(key, for: .milliseconds(duration))
          model.block(for: duration * 1_000_000, at: now)
        default:
          let expected = model.retryAfter(n, at: now).map { Duration.nanoseconds($0) }
          log.append("retryAfter \(String(describing: expected))")
          #expect(one.retryAfter(n) == expected, "\(log)")
          #expect(keyed.retryAfter(n, for: key) == expected, "\(log)")
          // The keys not at rest: a booking still in (now − T, ∞), or a block.
          models[key] = model
          let held = models.values.filter { model in
            model.blockedUntil > now || model.bookings.contains { $0.time + model.window > now }
          }
          #expect(keyed.count == held.count, "\(log)")
        }
      }
    }
    print("WindowOperationsModelTests: \(Self.timelines) timelines, seed \(seed)")
  }
}
