import RateLimitStoreKit
import Testing

@testable import RateLimit

/// SPEC 4.4, "Tested for real": random timelines on several keys, `KeyedConcurrencyLimiter` on a `ManualClock`
/// against a reference line written as plainly as the rules read. After every step each key's `inUse`, the keys
/// kept, and every waiter's outcome agree.
@Suite struct LeaseReplayTests {
  /// The rules, plainly: per key the permits held and the line; a waiter gives up at its deadline, before the
  /// line is served at that instant.
  struct Reference {
    struct Waiter {
      let id: Int
      let key: Int
      let permits: Int
      let deadline: Int64?
    }
    enum Outcome: Equatable { case served, cancelled, waitedTooLong, exceedsCapacity }

    var limit: Int
    var now: Int64 = 0
    var inUse: [Int: Int] = [:]
    var line: [Int: [Waiter]] = [:]
    /// Waiters that left the line, and how, since the last look.
    var ended: [(id: Int, outcome: Outcome)] = []

    func fits(_ permits: Int, _ key: Int) -> Bool {
      (line[key] ?? []).isEmpty && permits <= limit - (inUse[key] ?? 0)
    }

    mutating func take(_ permits: Int, _ key: Int) { inUse[key, default: 0] += permits }

    mutating func give(_ permits: Int, _ key: Int) {
      inUse[key, default: 0] -= permits
      serve(key)
    }

    mutating func leave(_ id: Int, _ outcome: Outcome) {
      for key in line.keys { line[key]?.removeAll { $0.id == id } }
      ended.append((id, outcome))
    }

    mutating func serve(_ key: Int) {
      for waiter in line[key] ?? [] where waiter.deadline.map({ $0 <= now }) ?? false {
        leave(waiter.id, .waitedTooLong)
      }
      while let head = line[key]?.first, head.permits <= limit - (inUse[key] ?? 0) {
        line[key]?.removeFirst()
        take(head.permits, key)
        ended.append((head.id, .served))
      }
      if inUse[key] == 0 { inUse[key] = nil }
      if line[key]?.isEmpty ?? false { line[key] = nil }
    }

    mutating func advance(to target: Int64) {
      let deadlines = Set(line.values.joined().compactMap(\.deadline)).filter { $0 <= target }.sorted()
      for instant in deadlines {
        now = instant
        for key in line.keys.sorted() where (line[key] ?? []).contains(where: { $0.deadline == instant }) {
          serve(key)
        }
      }
      now = target
    }

    mutating func update(_ newLimit: Int) {
      limit = newLimit
      for key in line.keys.sorted() {
        for waiter in line[key] ?? [] where waiter.permits > newLimit { leave(waiter.id, .exceedsCapacity) }
        serve(key)
      }
    }

    var keysKept: Int { Set(inUse.keys).union(line.keys).count }
  }

  @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
  func theLimiterFollowsTheReferenceLine(seed: UInt64) async throws {
    var random = SeededGenerator(seed: seed)
    let startLimit = Int.random(in: 1...4, using: &random)
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<Int>(limit: startLimit, clock: clock)
    var reference = Reference(limit: startLimit)
    // `alone`: only this test references the lease (from `tryAcquire`). A lease an `acquire` task returned is also
    // in that task's result, which the runtime frees on its own thread some time after `value` returned: released
    // by deallocation, it would be released at a moment the test does not choose.
    var held: [(key: Int, lease: Lease, alone: Bool)] = []
    var waiting: [Int: (key: Int, task: Task<Lease, any Error>)] = [:]
    var nextID = 0
    var served = 0

    func collect() async {
      for (id, outcome) in reference.ended {
        guard let (key, task) = waiting.removeValue(forKey: id) else { continue }
        let result = await task.result
        switch (outcome, result) {
        case (.served, .success(let lease)):
          held.append((key, lease, false))
          served += 1
        case (.cancelled, .failure(let error)): #expect(error is CancellationError, "waiter \(id)")
        case (.waitedTooLong, .failure(let error)): #expect(error is RateLimiterError, "waiter \(id): \(error)")
        case (.exceedsCapacity, .failure(let error)): #expect(error is RateLimiterError, "waiter \(id): \(error)")
        default: Issue.record("waiter \(id): expected \(outcome), got \(result)")
        }
      }
      reference.ended = []
    }

    for step in 0..<600 {
      let key = Int.random(in: 0..<3, using: &random)
      let permits = Int.random(in: 1...3, using: &random)
      switch Int.random(in: 0..<100, using: &random) {
      case 0..<25:
        let lease = limiter.tryAcquire(permits, for: key)
        let expected = permits <= reference.limit && reference.fits(permits, key)
        #expect((lease != nil) == expected, "step \(step): tryAcquire")
        if let lease {
          reference.take(permits, key)
          held.append((key, lease, true))
        }
      case 25..<50:
        let maxWait: Duration? =
          Bool.random(using: &random) ? nil : .milliseconds(Int.random(in: 0...40, using: &random))
        let id = nextID
        nextID += 1
        let task = Task { try await limiter.acquire(permits, for: key, within: maxWait) }
        if permits > reference.limit {
          await #expect(throws: RateLimiterError.exceedsCapacity(requested: permits, capacity: reference.limit)) {
            try await task.value
          }
        } else if reference.fits(permits, key) {
          let lease = try await task.value
          reference.take(permits, key)
          held.append((key, lease, false))
        } else if maxWait == .zero {
          await #expect(throws: RateLimiterError.waitedTooLong(maxWait: .zero)) { try await task.value }
        } else {
          let deadline = maxWait.map { reference.now + Int64($0.components.attoseconds / 1_000_000_000) }
          reference.line[key, default: []].append(.init(id: id, key: key, permits: permits, deadline: deadline))
          waiting[id] = (key, task)
          await limiter.lines.waitUntilWaiting(atLeast: reference.line[key]!.count, for: key)
        }
      case 50..<75:
        guard !held.isEmpty else { continue }
        let (key, lease, alone) = held.remove(at: Int.random(in: 0..<held.count, using: &random))
        if Bool.random(using: &random) || !alone { lease.release() } else { withExtendedLifetime(lease) {} }
        reference.give(lease.permits, key)
      case 75..<83:
        guard let id = waiting.keys.sorted().randomElement(using: &random) else { continue }
        let key = waiting[id]!.key
        waiting[id]!.task.cancel()
        // The cancellation handler runs inside cancel(): the waiter has left when it returns.
        reference.leave(id, .cancelled)
        reference.serve(key)
      case 83..<95:
        reference.advance(to: reference.now + Int64(Int.random(in: 0...20, using: &random)) * 1_000_000)
        clock.advance(to: .nanoseconds(reference.now))
      default:
        let newLimit = Int.random(in: 1...4, using: &random)
        limiter.update(limit: newLimit)
        reference.update(newLimit)
      }
      await collect()
      for key in 0..<3 {
        #expect(limiter.inUse(for: key) == reference.inUse[key] ?? 0, "step \(step), key \(key)")
      }
      #expect(limiter.count == reference.keysKept, "step \(step)")
    }
    for (_, task) in waiting.values { task.cancel() }
    for (_, task) in waiting.values { _ = await task.result }
    held.removeAll()
    #expect(limiter.count == 0)
    #expect(served > 0, "the timeline served waiters")
  }
}
