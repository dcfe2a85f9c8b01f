/// One `acquire` that waits for its turn. Every field is read and written under its limiter's lock
/// (``LeaseLines``); the continuation is resumed outside it.
final class LeaseWaiter: @unchecked Sendable {
  // @unchecked Sendable: every mutable field is touched only under the lock of the one `LeaseLines` that the
  // waiter belongs to.
  enum State {
    /// Made, not in the line yet.
    case new
    /// Its task was cancelled before it joined the line: it never joins.
    case cancelledEarly
    /// In the line.
    case waiting(CheckedContinuation<Lease, any Error>)
    /// Served, or given up: out of the line.
    case done
  }

  let permits: Int
  /// The instant its `maxWait` ends (on the limiter's clock), `.max` for none.
  let deadline: Int64
  /// The `maxWait` it was given, for ``RateLimiterError/waitedTooLong(maxWait:)``.
  let maxWait: Duration?
  var state = State.new
  /// The key's record whose line it waits in, while it waits.
  var holder: LeaseHolding?

  init(permits: Int, deadline: Int64, maxWait: Duration?) {
    self.permits = permits
    self.deadline = deadline
    self.maxWait = maxWait
  }
}

/// A waiter leaving the line, and how: resumed outside the lock.
struct LeaseHandOff {
  let continuation: CheckedContinuation<Lease, any Error>
  let outcome: Result<Lease, any Error>

  func resume() { continuation.resume(with: outcome) }
}

/// A key's waiters, first come first served: O(1) to join, to leave at the head and to find the head; leaving
/// from the middle (a cancellation) is a scan.
struct LeaseWaiterLine {
  private var slots: [LeaseWaiter?] = []
  private var start = 0
  /// Waiters in the line.
  private(set) var count = 0
  /// Waiters in the line with a deadline.
  private(set) var withDeadline = 0

  var isEmpty: Bool { count == 0 }

  mutating func append(_ waiter: LeaseWaiter) {
    slots.append(waiter)
    count += 1
    if waiter.deadline != .max { withDeadline += 1 }
  }

  /// The first waiter.
  var first: LeaseWaiter? {
    var index = start
    while index < slots.count {
      if let waiter = slots[index] { return waiter }
      index += 1
    }
    return nil
  }

  /// Takes `waiter` out of the line.
  mutating func remove(_ waiter: LeaseWaiter) {
    guard let index = slots[start...].firstIndex(where: { $0 === waiter }) else { return }
    slots[index] = nil
    count -= 1
    if waiter.deadline != .max { withDeadline -= 1 }
    compact()
  }

  /// The waiters whose deadline is at or before `now`, in line order.
  func due(at now: Int64) -> [LeaseWaiter] {
    guard withDeadline > 0 else { return [] }
    return slots[start...].compactMap { $0 }.filter { $0.deadline <= now }
  }

  /// Every waiter, in line order.
  var all: [LeaseWaiter] { slots[start...].compactMap { $0 } }

  private mutating func compact() {
    while start < slots.count, slots[start] == nil { start += 1 }
    if start == slots.count {
      // Empty: drop a large buffer so that a key that once had a long line does not keep it.
      slots.removeAll(keepingCapacity: slots.capacity <= 16)
      start = 0
    } else if slots.count - start > 2 * count + 16 {
      // More holes than waiters (waiters leaving from behind a head that stays): close them up. Amortized O(1)
      // a removal; the line's storage follows the waiters in it.
      slots = slots[start...].filter { $0 != nil }
      start = 0
    } else if start >= 16, start * 2 >= slots.count {
      slots.removeFirst(start)
      start = 0
    }
  }
}
