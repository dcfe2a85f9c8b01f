/// A permit rule as a pure state machine: no locks, no clocks, no tasks. The rule is the configuration (limit,
/// window, burst); the state it works on is a separate value, so that ``KeyedRateLimiter`` keeps one small state per
/// key and none for a key at rest. Times are whole nanoseconds on the clock's time line.
///
/// Every operation is a few lines over two helpers, as in Go's `rate.Limiter`: bring the state up to `now`, and
/// find the earliest instant a request can be booked.
protocol PermitRule: Sendable {
  associatedtype State: Sendable

  /// The most permits one request can ever get: `limit` for a window, `burst` for a bucket.
  var capacity: Int { get }

  /// The state of a limiter that has never been used.
  var fresh: State { get }

  /// The earliest instant a request for `permits` (at most ``capacity``) made at `now` could be booked. Books
  /// nothing.
  func earliest(_ permits: Int, at now: Int64, in state: State) -> Int64

  /// Books `permits` (at most ``capacity``) at the earliest instant, unless that is later than `deadline`: then
  /// returns `nil` and changes nothing. `cancellable`: whether a ``Booking`` will ever be cancelled (`tryAcquire`'s
  /// never is). The request is made as at `now`, which a block moves to its end; the state forgets only what
  /// is behind `present`, the clock's now (a booking made during a block forgot the bookings still ahead).
  func reserve(
    _ permits: Int, at now: Int64, forgetting present: Int64, notAfter deadline: Int64, id: UInt64,
    cancellable: Bool, in state: inout State
  ) -> Booking?

  /// Gives `booking`'s permits back at `now`, as far as the rule allows; nothing the second time. Called only at
  /// or before the booking's time (``PermitBook/cancel(_:at:blockedUntil:in:)``), a block (until `blockedUntil`)
  /// or not.
  func cancel(_ booking: Booking, at now: Int64, blockedUntil: Int64, in state: inout State)

  /// Takes back a grant made under a cancellable id, whenever (a refused HTTP request's other policies): as if it
  /// had never been made, less what later bookings counted on.
  func undo(_ booking: Booking, at now: Int64, in state: inout State)

  /// Takes `permits` (0 or more, any number) at `now` whatever the limit, the only way past it: as the same
  /// permits granted now, behind no one and ahead of no one (bookings ahead keep their instants); debt is paid by
  /// the rule at its usual rate (SPEC 4.2, "Operating a key"). `id`: a new id, for a log that needs one.
  func charge(_ permits: Int, at now: Int64, id: UInt64, in state: inout State)

  /// Gives back up to `permits` (0 or more) of what was taken at or before `now`, the latest first, never more
  /// than was taken and never a booking ahead.
  func refund(_ permits: Int, at now: Int64, in state: inout State)

  /// A copy of `state` that shares nothing a change to it could reach (`peek` decides on one).
  func independentCopy(of state: State) -> State

  /// Forgets every permit taken at or before `now`, and any debt: only the bookings ahead stay.
  func reset(at now: Int64, in state: inout State)

  /// The most permits a request made now would get at once (0 if none).
  func remaining(at now: Int64, in state: State) -> Int

  /// The instant from which the state is at rest (as fresh) if nothing more comes; `.min` if it is now.
  func restAt(at now: Int64, in state: State) -> Int64
  /// Once `remaining(at:in:)` permits are taken at `now` (when there are any), nanoseconds until one more permit
  /// comes; `nil` when none remain (then it is `retryAfter(1)`, bookings ahead and debt included).
  func effectiveWindow(at now: Int64, in state: State) -> Int64?

  /// ``remaining(at:in:)``, ``restAt(at:in:)`` and ``effectiveWindow(at:in:)`` at once, for a verdict (a rule
  /// may share their work: the bucket's credit is counted once).
  func report(at now: Int64, in state: State) -> (remaining: Int, restAt: Int64, effectiveWindow: Int64?)

  /// The clock went back by `jump`: counts as no time passing. Not called for a rule on a time line.
  func clockWentBack(by jump: Int64, in state: inout State)

  /// Whether the rule's instants are kept on a time line that runs ahead of the clock by the steps back taken
  /// (``PermitBook/onTimeLine(_:)``), so that a step moves no state and costs O(1) however many keys or
  /// bookings are held. Only for a rule that depends on nothing but differences of instants (a sliding window);
  /// the token bucket's Go arithmetic keeps `last` on the clock's own line.
  static var takesStepsOnATimeLine: Bool { get }

  /// This rule with `parameters` from `now` on (SPEC 4.2 `update`): the same rule, new N and T (and B).
  func updated(to parameters: PermitParameters, at now: Int64) -> Self

  /// Brings `state`, kept under `old` until `now`, under this rule (an `update` at `now`).
  func adopt(_ state: inout State, from old: Self, at now: Int64)

  /// Whether ``adopt(_:from:at:)`` changes a state at all: if not, an update is O(1) however many keys are held.
  static var adoptsStates: Bool { get }

  /// Whether `state` behaves, from `now` on, exactly as ``fresh`` would. May drop what no longer matters.
  func isFresh(_ state: inout State, at now: Int64) -> Bool
}

/// A grant the rules made: `permits` at `time`, under `id`. `time` is the instant it was booked for, after first
/// come, first served: for the token bucket, Go's `timeToAct` (SPEC 3.1).
struct Booking: Sendable {
  var time: Int64
  var permits: Int
  var id: UInt64
}

extension PermitRule {
  func report(at now: Int64, in state: State) -> (remaining: Int, restAt: Int64, effectiveWindow: Int64?) {
    (remaining(at: now, in: state), restAt(at: now, in: state), effectiveWindow(at: now, in: state))
  }
}
