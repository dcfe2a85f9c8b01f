/// The strict sliding window: a request for n is booked at the earliest instant s ≥ now, and ≥ the latest booking,
/// at which the permits booked in (s − T, s] plus n are at most N. So no window of length T, anywhere, ever holds
/// more than N permits.
///
/// ```
/// N = 2, T = 4     0 1 2 3 4 5 6
/// requests         a b c . . d .
/// granted          a b . . c d .   c waits until a leaves
/// ```
///
/// The state is the log of bookings in (now − T, ∞): memory O(N) plus the bookings ahead. With N = 1,
/// `tryAcquire` is exactly `Throttler.leading`'s rule: `now − lastGrant >= T`.
///
/// The same rule runs in PostgreSQL, in PL/pgSQL: `ratelimit_decide_v4` (RateLimitPostgres,
/// `Schema+Decide.swift`). A change to one is a change to the other; the replay tests hold both to the same
/// answers, and the store kit (Tests/RateLimitStoreKit) holds both to one set of answers written out. A clock
/// that steps back is taken in here, on the time line of ``ClockSteps``; `PostgresRateLimiter` sends the
/// database its readings on the same line, so there a key never sees the step.
struct SlidingWindow<Log: WindowLog>: PermitRule {
  typealias State = Log

  let limit: Int
  /// T in nanoseconds, at least 1 (a zero window never reaches the rules).
  let window: Int64
  /// Bookings at or before this instant are forgotten whatever the window: those that had left the window when
  /// an `update` made it longer (SPEC 4.2). `.min` until then.
  var floor: Int64 = .min

  var capacity: Int { limit }

  /// The start of the window that ends at `instant`: bookings at or before it are outside (instant − T,
  /// instant], and so are those at or before ``floor``.
  @inline(__always)
  func start(of instant: Int64) -> Int64 {
    Swift.max(Nanoseconds.subtracting(instant, window), floor)
  }
  var fresh: Log { Log() }

  func earliest(_ permits: Int, at now: Int64, in log: Log) -> Int64 {
    // Not before now, nor before the latest booking (first come, first served).
    let base = Swift.max(now, log.lastTime ?? now)
    // Nothing booked ahead: from the oldest booking on, where what has left the window was already removed
    // (O(1) amortized). Bookings ahead: from the latest back, at most N steps however many are ahead.
    if base > now { return earliestFromTheLatest(permits, base: base, in: log) }
    var instant = base
    var inWindow = log.total
    // Charges past `Int.max` permits: the same slide, counted in 128 bits.
    if inWindow == .max { return earliestCountingWide(permits, at: base, in: log) }
    let count = log.count
    var index = 0
    // Bookings at or before `instant − T` are outside (instant − T, instant].
    func leaveWindow() {
      let start = start(of: instant)
      while index < count, log.time(at: index) <= start {
        inWindow &-= log.permits(at: index)
        index += 1
      }
    }
    leaveWindow()
    // Slide until enough of the oldest bookings have left: the next leaves at its time + T. The log's total is
    // below Int.max here, so no difference overflows.
    while permits > limit - inWindow, index < count {
      instant = Nanoseconds.adding(log.time(at: index), window)
      // The 292-year horizon of Int64 nanoseconds: nothing is ever booked later, and no booking leaves from there.
      if instant == .max { break }
      leaveWindow()
    }
    return instant
  }

  /// `earliest` for a log whose permits sum to `Int.max` or more (charges: SPEC 4.3.1, "No arithmetic trap from
  /// the outside"): the same slide with the permits in the window counted exactly, in 128 bits, as PostgreSQL
  /// counts them in `numeric`. So a window holding 2 × `Int.max` permits waits for both charges to leave.
  private func earliestCountingWide(_ permits: Int, at base: Int64, in log: Log) -> Int64 {
    let limit = Wide(Int64(self.limit))
    let asked = Wide(Int64(permits))
    var instant = base
    var inWindow = log.exactTotal
    var index = 0
    while true {
      let start = start(of: instant)
      while index < log.count, log.time(at: index) <= start {
        inWindow = inWindow - Wide(Int64(log.permits(at: index)))
        index += 1
      }
      if !(limit < inWindow + asked) || index == log.count { return instant }
      instant = Nanoseconds.adding(log.time(at: index), window)
      // The 292-year horizon of Int64 nanoseconds: nothing is ever booked later.
      if instant == .max { return instant }
    }
  }

  /// `earliest` when a booking is ahead: from the latest booking back, the permits in (base − T, base] while
  /// they leave room for the request; the first booking that does not fit must have left the window, at its
  /// time + T. `inWindow` stays within N − permits, so no sum overflows.
  private func earliestFromTheLatest(_ permits: Int, base: Int64, in log: Log) -> Int64 {
    let start = start(of: base)
    var inWindow = 0
    var index = log.count - 1
    while index >= 0 {
      let time = log.time(at: index)
      if time <= start { break }
      let booked = log.permits(at: index)
      if booked > limit - permits - inWindow {
        // The 292-year horizon of Int64 nanoseconds: nothing is ever booked later.
        return Swift.max(base, Nanoseconds.adding(time, window))
      }
      inWindow += booked
      index -= 1
    }
    return base
  }

  func reserve(
    _ permits: Int, at now: Int64, forgetting present: Int64, notAfter deadline: Int64, id: UInt64,
    cancellable: Bool, in log: inout Log
  ) -> Booking? {
    log.removeAll(notAfter: start(of: present))
    // A booking ahead and a deadline before it (`tryAcquire`): refused in O(1), however many are ahead.
    if let last = log.lastTime, last > deadline { return nil }
    let time = earliest(permits, at: now, in: log)
    guard time <= deadline else { return nil }
    log.append(BookingLog.Entry(time: time, permits: permits, id: id))
    return Booking(time: time, permits: permits, id: id)
  }

  func cancel(_ booking: Booking, at now: Int64, blockedUntil: Int64, in log: inout Log) {
    // The booking leaves the log; later ones keep their times.
    log.removeBooking(id: booking.id)
  }

  /// Never called: a step back adds to the time line's offset instead, so that every instant in every log moves
  /// back with the clock at once.
  func clockWentBack(by jump: Int64, in log: inout Log) {}

  static var takesStepsOnATimeLine: Bool { true }

  func isFresh(_ log: inout Log, at now: Int64) -> Bool {
    log.removeAll(notAfter: start(of: now))
    return log.isEmpty
  }
}
