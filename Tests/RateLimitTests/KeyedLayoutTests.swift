import Testing

@testable import RateLimit

/// What keeps a keyed limiter's memory per key within the SPEC's bounds: 16 bytes a key beside the key itself.
@Suite struct KeyedLayoutTests {
  @Test func aKeysStateIsSixteenBytes() {
    #expect(MemoryLayout<PackedPermitState>.stride == 16)
    #expect(MemoryLayout<KeyedWindowLog>.stride == 16)
    #expect(MemoryLayout<TimeQueue>.stride == 8)
  }

  @Test func aKeyedWindowKeepsPlainBookingsSmallAndTheRestWhole() {
    var log = KeyedWindowLog()
    log.append(BookingLog.Entry(time: 1, permits: 1, id: 2))
    guard case .one = log else { Issue.record("one booking: \(log)"); return }
    log.append(BookingLog.Entry(time: 2, permits: 1, id: 4))
    log.append(BookingLog.Entry(time: 3, permits: 1, id: 6))
    guard case .times = log else { Issue.record("plain bookings: \(log)"); return }
    #expect(log.total == 3)
    log.append(BookingLog.Entry(time: 4, permits: 1, id: 9))  // odd: may be cancelled
    guard case .whole = log else { Issue.record("a cancellable booking: \(log)"); return }
    #expect((log.count, log.total, log.time(at: 0), log.lastTime) == (4, 4, 1, 4))
    log.removeBooking(id: 9)
    log.removeAll(notAfter: 2)
    guard case .one(time: 3, permits: 1) = log else { Issue.record("down to one: \(log)"); return }
    log.removeAll(notAfter: 3)
    guard case .empty = log else { Issue.record("none: \(log)"); return }
  }

  /// One key of a window with N = 10,000 cost microseconds a grant: every append, removal and shift copied the
  /// whole queue of instants, because a `switch` on the log kept a second reference to it while the case ran (a
  /// step back moved it too, before a window's instants were kept on a time line).
  @Test func aKeyedWindowChangesItsQueueInPlace() {
    var log = KeyedWindowLog()
    for time in 1...1_000 { log.append(BookingLog.Entry(time: Int64(time), permits: 1, id: 2)) }
    // A copy is allocated while the original is alive, so it is elsewhere (compared one change at a time: malloc may
    // hand a freed buffer back later).
    var storage = log.storageAddress
    log.append(BookingLog.Entry(time: 1_001, permits: 1, id: 2))
    #expect(log.storageAddress == storage, "append")
    storage = log.storageAddress
    log.removeAll(notAfter: 1)
    #expect(log.storageAddress == storage, "removeAll")
    #expect((log.count, log.time(at: 0), log.lastTime) == (1_000, 2, 1_001))
  }
}

/// A booking log takes a clock's step back in O(1): every instant reads moved, whenever it was added.
@Suite struct BookingLogTests {
  @Test func aStepMovesEveryInstantAtOnce() {
    var log = BookingLog()
    log.append(BookingLog.Entry(time: 10, permits: 1, id: 1))
    log.shift(back: 3)
    log.append(BookingLog.Entry(time: 9, permits: 2, id: 3))
    #expect((log.first?.time, log.last?.time, log.time(at: 1), log.permits(at: 1)) == (7, 9, 9, 2))
    log.shift(back: 2)
    #expect((log.first?.time, log.last?.time) == (5, 7))
    #expect(log.remove(id: 1)?.time == 5)
    log.append(BookingLog.Entry(time: .max, permits: 1, id: 5))  // the horizon stays the horizon
    log.shift(back: 1)
    #expect((log.first?.time, log.last?.time, log.count) == (4, .max, 3))  // the first: a tombstone (cancelled)
    log.removeAll(notAfter: 6)
    #expect((log.first?.time, log.count) == (.max, 1))
  }
}
