/// Operating a key of a sliding window (SPEC 4.2): its log of bookings changed in place.
///
/// | operation | the log |
/// |---|---|
/// | `charge(n)` | a booking of n at now, behind the bookings at or before now, ahead of those after it |
/// | `refund(n)` | the bookings in (now − T, now] shrink or go, the latest first, by n at most |
/// | `reset` | every booking at or before now goes; the bookings ahead stay |
///
/// A charge is any number of permits up to `Int.max`, and charges may sum past it (SPEC 4.3.1, "No arithmetic
/// trap from the outside"): the log counts its permits exactly in 128 bits (``BookingLog/exactTotal``), as
/// PostgreSQL counts them in `numeric`, and reports what is in the window saturated at `Int.max`. So two
/// `charge(Int.max)` leave a 5-per-minute key refused until both have left the window, never with permits to
/// spare.
extension SlidingWindow {
  func charge(_ permits: Int, at now: Int64, id: UInt64, in log: inout Log) {
    log.removeAll(notAfter: start(of: now))
    guard permits > 0 else { return }
    log.insertTaken(permits, newID: id, at: now)
  }

  func refund(_ permits: Int, at now: Int64, in log: inout Log) {
    log.removeAll(notAfter: start(of: now))
    guard permits > 0 else { return }
    log.refund(permits, notAfter: now)
  }

  func reset(at now: Int64, in log: inout Log) {
    log.removeAll(notAfter: now)
  }

  func independentCopy(of log: Log) -> Log { log.independentCopy() }
}
