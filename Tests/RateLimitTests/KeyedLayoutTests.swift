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
}
