/// The token bucket of Go's `golang.org/x/time/rate`: it holds up to B permits, starts full, and refills
/// continuously at N per T. A request for n takes n; the bucket may go into debt for bookings, and a request is
/// booked at the instant the debt it adds is paid off.
///
/// Exact where Go's floats drift: credit is counted in nanosecond-permits (a permit is worth T, a nanosecond adds
/// N), so over k windows never more than k·N + B permits are granted. Two deliberate differences from Go (SPEC):
/// a second cancel of the same booking does nothing, and no request is booked earlier than a live booking made
/// before it (Go's cancel of a middle reservation can let a newcomer overtake a waiting one). Booking instants
/// are rounded up to the next nanosecond.
///
/// ```
/// N = 2 per T = 4, B = 2   0 1 2 3 4 5 6
/// requests                 a b c d . . .
/// granted                  a b c . d . .   full at 0: a, b; then one every 2
/// ```
///
/// The same rule runs in PostgreSQL, in PL/pgSQL: `ratelimit_decide_v4` (RateLimitPostgres,
/// `Schema+Decide.swift`). A change to one is a change to the other; the replay tests hold both to the same
/// answers, and the store kit (Tests/RateLimitStoreKit) holds both to one set of answers written out, a clock
/// that steps back included.
struct TokenBucket: PermitRule {
  struct State: Sendable {
    /// Credit at `last`, in nanosecond-permits (negative: debt for bookings ahead or charges). Exact in 128 bits,
    /// as PostgreSQL's `numeric`; a debt past −2^127 (about two charges of `Int.max` permits of a
    /// window of `Int64.max` nanoseconds) saturates there and never wraps (SPEC 4.3.1).
    var tokens: Wide
    /// When `tokens` was last brought up to date.
    var last: Int64 = .min
    /// The instant the latest booking was booked for (Go's `lastEvent`; after first come, first served, SPEC 3.1).
    var lastEvent: Int64 = .min
    /// Bookings not yet granted, for first come, first served and for cancelling.
    var ahead = BookingLog()
  }

  /// N.
  let limit: Int64
  /// T in nanoseconds, at least 1 (a zero window never reaches the rules).
  let window: Int64
  /// B.
  let burst: Int

  var capacity: Int { burst }
  /// A full bucket: B permits of credit.
  var full: Wide { Wide.product(Int64(burst), window) }
  var fresh: State { State(tokens: full) }

  /// The credit at `now` (Go's `advance`): a clock that went back counts as no time passing.
  func tokens(at now: Int64, in state: State) -> Wide {
    let full = self.full
    if state.tokens >= full { return full }
    let last = Swift.min(state.last, now)
    let elapsed = Nanoseconds.subtracting(now, last)
    // Two 63-bit factors fit in 128 bits, and the sum saturates: exact, and no division on the hot path.
    return Swift.min(state.tokens + Wide.product(elapsed, limit), full)
  }

  /// Go's reservation: the credit after taking `permits` at `now`, and when its debt is paid off.
  func take(_ permits: Int, at now: Int64, in state: State) -> (tokens: Wide, time: Int64) {
    let tokens = self.tokens(at: now, in: state) - Wide.product(Int64(permits), window)
    let wait = tokens < .zero ? (Wide.zero - tokens).dividedRoundingUp(by: limit) : 0
    return (tokens, Nanoseconds.adding(now, wait))
  }

  func earliest(_ permits: Int, at now: Int64, in state: State) -> Int64 {
    let time = take(permits, at: now, in: state).time
    // First come, first served: not before a live booking made earlier.
    return Swift.max(time, state.ahead.last?.time ?? time)
  }

  func reserve(
    _ permits: Int, at now: Int64, forgetting present: Int64, notAfter deadline: Int64, id: UInt64,
    cancellable: Bool, in state: inout State
  ) -> Booking? {
    state.ahead.removeAll(before: present)
    // `tryAcquire` (a deadline of now): refused at once, without computing the wait, if anyone waits or the
    // bucket would go into debt.
    if deadline <= now {
      if let last = state.ahead.last, last.time > now { return nil }
      // The credit counted once: enough now, or refused.
      let tokens = self.tokens(at: now, in: state) - Wide.product(Int64(permits), window)
      if tokens < .zero { return nil }
      state.last = now
      state.tokens = tokens
      state.lastEvent = now
      if cancellable { state.ahead.append(BookingLog.Entry(time: now, permits: permits, id: id)) }
      return Booking(time: now, permits: permits, id: id)
    }
    let (tokens, bucketTime) = take(permits, at: now, in: state)
    // First come, first served: not before a live booking made earlier. The later instant is the booking's
    // instant everywhere, Go's `timeToAct` and `lastEvent` included (SPEC 3.1).
    let time = Swift.max(bucketTime, state.ahead.last?.time ?? bucketTime)
    // A request that fails changes nothing.
    guard time <= deadline else { return nil }
    state.last = now
    state.tokens = tokens
    state.lastEvent = time
    if cancellable || time > now { state.ahead.append(BookingLog.Entry(time: time, permits: permits, id: id)) }
    return Booking(time: time, permits: permits, id: id)
  }

  func cancel(_ booking: Booking, at now: Int64, blockedUntil: Int64, in state: inout State) {
    // Go's `Reservation.CancelAt`: give back the permits, less those later bookings have counted on.
    guard state.ahead.remove(id: booking.id) != nil else { return }
    let countedOn = Wide.product(Nanoseconds.subtracting(state.lastEvent, booking.time), limit)
    // During a block, a bucket that a booking made during it brought up to the block's end takes the credit
    // there; otherwise at now (Go's: a clock that went back is taken in).
    let instant = now < blockedUntil ? Swift.max(now, Swift.min(state.last, blockedUntil)) : now
    giveBack(Wide.product(Int64(booking.permits), window) - countedOn, of: booking, at: instant, in: &state)
  }

  /// Takes back a grant `decide` made (RateLimitHTTP's all or nothing), whenever and whatever other grants came
  /// between: exactly its permits come back (never above a full bucket). Unlike a cancel, later grants counted
  /// on nothing of it: they were granted at their own instants from what the bucket held then. 4.1 gave back
  /// nothing once another grant had pruned it from the list ahead.
  func undo(_ booking: Booking, at now: Int64, in state: inout State) {
    _ = state.ahead.remove(id: booking.id)
    giveBack(Wide.product(Int64(booking.permits), window), of: booking, at: now, in: &state)
  }

  /// Adds `credit` to the bucket at `now`; the latest booking moves back if it was this one.
  private func giveBack(_ credit: Wide, of booking: Booking, at now: Int64, in state: inout State) {
    guard Wide.zero < credit else { return }
    state.tokens = Swift.min(tokens(at: now, in: state) + credit, full)
    state.last = now
    if booking.time == state.lastEvent {
      let previous = Nanoseconds.subtracting(
        booking.time, Wide.product(Int64(booking.permits), window).dividedRoundingDown(by: limit))
      if previous >= now { state.lastEvent = previous }
    }
  }

  func clockWentBack(by jump: Int64, in state: inout State) {
    // Go's own state takes the step in at the next booking; bookings ahead move back with the clock.
    state.ahead.shift(back: jump)
  }

  /// Go's `last` stays on the clock's own line, and takes a step in at the next booking.
  static var takesStepsOnATimeLine: Bool { false }

  func isFresh(_ state: inout State, at now: Int64) -> Bool {
    state.ahead.removeAll(before: now)
    return state.ahead.isEmpty && tokens(at: now, in: state) >= full
  }
}
