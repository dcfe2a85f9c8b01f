extension SlidingWindow {
  /// N minus the permits in (now − T, now]; 0 while a booking is ahead (no request overtakes it).
  func remaining(at now: Int64, in log: Log) -> Int {
    if let last = log.lastTime, last > now { return 0 }
    // From the latest booking back, as `earliest`: at most N steps.
    let start = Nanoseconds.subtracting(now, window)
    var inWindow = 0
    var index = log.count - 1
    while index >= 0, log.time(at: index) > start {
      let booked = log.permits(at: index)
      if booked >= limit - inWindow { return 0 }
      inWindow += booked
      index -= 1
    }
    return limit - inWindow
  }

  /// At rest once the last booking has left the window.
  func restAt(at now: Int64, in log: Log) -> Int64 {
    guard let last = log.lastTime else { return .min }
    return Nanoseconds.adding(last, window)
  }

  /// The booking leaves the log, whenever; later ones keep their instants.
  func undo(_ booking: Booking, at now: Int64, in log: inout Log) {
    log.removeBooking(id: booking.id)
  }
}
