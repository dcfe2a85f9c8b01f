extension SlidingWindow {
  /// N minus the permits in (now − T, now]; 0 while a booking is ahead (no request overtakes it).
  func remaining(at now: Int64, in log: Log) -> Int {
    if let last = log.lastTime, last > now { return 0 }
    return Swift.max(0, limit - inWindow(at: now, in: log).permits)
  }

  /// With N − k left now, taking them fills the window: one more permit comes when the oldest booking in
  /// (now − T, now] leaves, or after T if there is none (the permits taken now are then the oldest).
  func effectiveWindow(at now: Int64, in log: Log) -> Int64? {
    if let last = log.lastTime, last > now { return nil }
    let (permits, oldest) = inWindow(at: now, in: log)
    guard limit - permits > 0 else { return nil }
    guard oldest < log.count else { return window }
    return Nanoseconds.subtracting(Nanoseconds.adding(log.time(at: oldest), window), now)
  }

  /// The permits in (now − T, now], saturating at `Int.max` (charges may hold more), and the offset of the oldest
  /// booking in it that holds any (`log.count` if none), nothing being ahead: from the oldest booking on, taking
  /// off what has left the window. A booking a refund or a cancel emptied stays in the log until it reaches the
  /// front, and is passed over.
  private func inWindow(at now: Int64, in log: Log) -> (permits: Int, oldest: Int) {
    let start = start(of: now)
    var index = 0
    while index < log.count, log.time(at: index) <= start { index += 1 }
    let left = index
    while index < log.count, log.permits(at: index) == 0 { index += 1 }
    var permits = log.total
    if permits < .max {
      for offset in 0..<left { permits -= log.permits(at: offset) }
      return (permits, index)
    }
    // Past Int.max: counted exactly, then saturated.
    var exact = log.exactTotal
    for offset in 0..<left { exact = exact - Wide(Int64(log.permits(at: offset))) }
    return (exact.exactInt64.map { Int($0) } ?? .max, index)
  }

  /// At rest once the last booking has left the window.
  func restAt(at now: Int64, in log: Log) -> Int64 {
    guard let last = log.lastTime, last > floor else { return .min }
    return Nanoseconds.adding(last, window)
  }

  /// The booking leaves the log, whenever; later ones keep their instants.
  func undo(_ booking: Booking, at now: Int64, in log: inout Log) {
    log.removeBooking(id: booking.id)
  }
}
