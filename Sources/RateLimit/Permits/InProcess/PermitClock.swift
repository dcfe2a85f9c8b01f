import Dispatch

/// The clock of a permit limiter, read in whole nanoseconds: ``DispatchClock`` directly, any other through its
/// box. Waiters' timers go through the box too, so that a custom clock never resumes a waiter inline.
struct PermitClock: Sendable {
  /// `nil` for ``DispatchClock``.
  let box: ClockBox?

  init(_ clock: some RateLimitClock) {
    box = clock is DispatchClock ? nil : ClockBox(clock)
  }

  /// `now`, rounded up to whole nanoseconds.
  func now() -> Int64 {
    guard let box else { return Int64(clamping: DispatchTime.now().uptimeNanoseconds) }
    return Nanoseconds.roundingUp(box.clock.now)
  }

  /// Runs `work` once the clock reaches `instant`, on a serial queue of its own (waiters resume in order).
  func schedule(at instant: Int64, _ work: @escaping @Sendable () -> Void) {
    let deadline = Duration.nanoseconds(instant)
    if let box {
      box.schedule(at: deadline, on: Self.queue, work)
    } else {
      DispatchClock().schedule(at: deadline, on: Self.queue, work)
    }
  }

  /// Where waiters' timers run: they only resume a continuation.
  static let queue = DispatchQueue(label: "RateLimit.RateLimiter.waiters")
}

/// What every permit operation shares, whatever keeps the state: the rule, the ids of bookings, and the latest
/// clock reading (to notice a clock that goes back). Guarded by its owner's lock.
struct PermitBook<Rule: PermitRule>: Sendable {
  /// The rule now (an `update` replaces it).
  private(set) var rule: Rule
  /// `window == .zero`: no limiting (every request up to the capacity is granted at once; nothing is kept).
  private(set) var isUnlimited: Bool
  /// The parameters the rule was made with, carried by every verdict (so that a report reads them under the
  /// store's lock, with the state).
  private(set) var parameters: PermitParameters
  private var nextID: UInt64 = 0
  private var steps = ClockSteps()
  /// Every step back the clock took, summed.
  var stepsBack: Int64 { steps.stepsBack }
  /// The highest clock reading taken in so far.
  var highestReading: Int64 { steps.highestReading }
  /// How far the rule's time line runs ahead of the clock: the steps back (``PermitRule/takesStepsOnATimeLine``).
  private var offset: Int64 { Rule.takesStepsOnATimeLine ? steps.stepsBack : 0 }

  init(rule: Rule, parameters: PermitParameters) {
    self.rule = rule
    self.isUnlimited = parameters.isUnlimited
    self.parameters = parameters
  }

  /// Takes in a clock reading: returns how far the clock went back since the previous one (0 if it did not). For
  /// a rule on a time line the step is taken in here, for every state at once; otherwise the caller moves the
  /// states (``PermitRule/clockWentBack(by:in:)``).
  mutating func read(_ reading: Int64) -> Int64 { steps.read(reading) }

  /// `reading` on the rule's time line, where its states keep their instants and every operation takes place. A
  /// step back of the clock leaves it where it was: no time passing, as if every instant had moved back.
  func onTimeLine(_ reading: Int64) -> Int64 { Nanoseconds.adding(reading, offset) }

  /// An instant on the time line, on the clock (for the caller: a `Reservation`'s `time`, a waiter's timer).
  func onClock(_ instant: Int64) -> Int64 { Nanoseconds.subtracting(instant, offset) }

  /// A new id, larger than every earlier one; odd if the booking may be cancelled (``BookingLog/Entry``).
  mutating func newID(cancellable: Bool) -> UInt64 {
    nextID &+= 1
    return nextID << 1 | (cancellable ? 1 : 0)
  }

  /// `tryAcquire`: books at `now` or not at all; never while the key is blocked (`now < blockedUntil`).
  mutating func tryAcquire(
    _ permits: Int, at now: Int64, blockedUntil: Int64 = .min, in state: inout Rule.State
  ) -> Bool {
    if now < blockedUntil { return false }
    if isUnlimited { return true }
    let id = newID(cancellable: false)
    return rule.reserve(permits, at: now, forgetting: now, notAfter: now, id: id, cancellable: false, in: &state)
      != nil
  }

  /// `reserve`: books at the earliest instant, if within `maxDelay` of `now`. A request made while the key is
  /// blocked is booked as the same request made at the block's end (SPEC 4.2).
  mutating func reserve(
    _ permits: Int, within maxDelay: Duration?, at now: Int64, blockedUntil: Int64 = .min,
    in state: inout Rule.State
  ) -> Booking? {
    let start = Swift.max(now, blockedUntil)
    let deadline = maxDelay.map { Nanoseconds.adding(now, Nanoseconds.roundingDown($0)) } ?? .max
    // A block that ends after the deadline leaves no instant to book: the rule, asked at the block's end with
    // a deadline before it, would take that for `tryAcquire` at the block's end (a bucket booked there).
    if start > deadline { return nil }
    if isUnlimited { return Booking(time: start, permits: permits, id: 0) }
    return rule.reserve(
      permits, at: start, forgetting: now, notAfter: deadline, id: newID(cancellable: true), cancellable: true,
      in: &state)
  }

  /// `retryAfter`: how long `reserve` would wait now (a block included).
  func retryAfter(_ permits: Int, at now: Int64, blockedUntil: Int64 = .min, in state: Rule.State) -> Int64 {
    let start = Swift.max(now, blockedUntil)
    if isUnlimited { return Nanoseconds.subtracting(start, now) }
    return Nanoseconds.subtracting(rule.earliest(permits, at: start, in: state), now)
  }

  /// `update` at `now`: the rule with `parameters` from now on. Returns the rule before, and whether each
  /// state must start fresh (no limiting before or after: nothing was kept, or nothing will be read) rather
  /// than be brought under the new rule (``PermitRule/adopt(_:from:at:)``).
  mutating func update(to parameters: PermitParameters, at now: Int64) -> (old: Rule, startsFresh: Bool) {
    let old = rule
    let startsFresh = isUnlimited || parameters.isUnlimited
    rule = old.updated(to: parameters, at: now)
    isUnlimited = parameters.isUnlimited
    self.parameters = parameters
    return (old, startsFresh)
  }

  /// `Reservation.cancel()` at `now`: at or before the booking's time only (after it, the permits were granted
  /// and used), a booking made before a block included. 4.2 cancelled as at the block's end, so a booking made
  /// before the block for an instant inside it gave nothing back.
  func cancel(_ booking: Booking, at now: Int64, blockedUntil: Int64 = .min, in state: inout Rule.State) {
    guard !isUnlimited, now <= booking.time else { return }
    rule.cancel(booking, at: now, blockedUntil: blockedUntil, in: &state)
  }
}
