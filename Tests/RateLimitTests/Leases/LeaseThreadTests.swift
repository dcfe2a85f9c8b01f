import Dispatch
import Testing

@testable import RateLimit

/// SPEC 4.4, "Exact", on threads and tasks at once (ThreadSanitizer runs this suite): a key's leases never hold
/// more than the limit, checked by every holder inside its lease, and the limit is reached.
@Suite struct LeaseThreadTests {
  /// Counts the permits held by the holders themselves, and the highest count seen.
  final class Occupancy: @unchecked Sendable {
    // @unchecked Sendable: both counts are only touched under `lock`.
    private let lock = Lock()
    private var now = 0
    private var highest = 0
    func enter(_ permits: Int) {
      lock.withLock {
        now += permits
        highest = max(highest, now)
      }
    }
    func leave(_ permits: Int) { lock.withLock { now -= permits } }
    var peak: Int { lock.withLock { highest } }
  }

  @Test func threadsTryingAndReleasingNeverExceedTheLimit() {
    let limiter = KeyedConcurrencyLimiter<Int>(limit: 3)
    let occupancy = [Occupancy(), Occupancy()]
    onSeparateThreads(8) { thread in
      for round in 0..<5_000 {
        let key = (thread + round) % 2
        let permits = 1 + round % 2
        guard let lease = limiter.tryAcquire(permits, for: key) else { continue }
        occupancy[key].enter(permits)
        occupancy[key].leave(permits)
        lease.release()
      }
    }
    #expect(occupancy.allSatisfy { $0.peak <= 3 })
    #expect(occupancy.contains { $0.peak >= 2 })
    #expect(limiter.count == 0)
  }

  @Test func tasksWaitingInLineAreAllServedAndNeverExceedTheLimit() async throws {
    let limiter = KeyedConcurrencyLimiter<Int>(limit: 2)
    let occupancy = [Occupancy(), Occupancy(), Occupancy()]
    let served = try await withThrowingTaskGroup(of: Int.self) { group in
      for task in 0..<300 {
        group.addTask {
          let key = task % 3
          let permits = 1 + task % 2
          return try await limiter.withLease(permits, for: key) {
            occupancy[key].enter(permits)
            await Task.yield()
            occupancy[key].leave(permits)
            return 1
          }
        }
      }
      return try await group.reduce(0, +)
    }
    #expect(served == 300)
    #expect(occupancy.allSatisfy { $0.peak <= 2 })
    #expect(occupancy.contains { $0.peak == 2 }, "the limit was reached")
    #expect(limiter.count == 0)
  }
}
