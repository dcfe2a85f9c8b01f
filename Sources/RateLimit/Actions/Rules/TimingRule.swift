/// A pure timing rule: a small state machine that decides, for each event, which values run and when.
///
/// A rule knows nothing of locks, queues or clocks. ``Engine`` feeds it events in time order under its lock and
/// carries out what it answers. The contract between the two:
///
/// - ``deadline`` is non-`nil` exactly while a value is held back; the engine calls ``deadlineReached()`` once
///   `now >= deadline`, before any other event at or after that instant ("work due runs first").
/// - ``called(at:with:)`` and ``flushed(at:)`` are therefore only called while `deadline` is `nil` or later
///   than `now`.
@usableFromInline
protocol TimingRule<Value>: Sendable {
  associatedtype Value: Sendable

  /// When the held value is due, or `nil` when nothing is held.
  var deadline: Instant? { get }

  /// A call arrived at `now`. Returns the value to run at once, if any.
  ///
  /// - Parameters:
  ///   - mayRunAtOnce: Evaluated only when the rule would run the call at once. `false` when a run started now
  ///     would be dropped (`.dropNew` while a run is running): a
  ///     call the rule would run at once is then a call the rule drops itself: no window opens, the last run
  ///     stays the last run (a debouncer's quiet period still restarts, as for every call). SPEC 3.0.
  ///   - displaced: receives a held value this call replaces, to be released outside the lock.
  mutating func called(
    at now: Instant, with value: Value, reducing reduce: @autoclosure () -> Reducer<Value>?,
    mayRunAtOnce: @autoclosure () -> Bool,
    displaced: inout Value?
  ) -> Value?

  /// The usual call in a burst, on its own: one the rules drop (a leading mode) or join to a held value that is
  /// not due yet (a trailing mode). Nothing runs, nothing is due before or after it, and a deadline only stays or
  /// moves later. Returns `false`, changing nothing, for any other call, which
  /// ``called(at:with:reducing:mayRunAtOnce:displaced:)`` then decides. The engine's fast path: for such a call
  /// there is no run to hand over and no earlier timer to arm.
  mutating func calledMidBurst(
    at now: Instant, with value: Value, reducing reduce: @autoclosure () -> Reducer<Value>?, displaced: inout Value?
  ) -> Bool

  /// ``deadline`` has been reached. Returns the held value, to run at that deadline.
  mutating func deadlineReached() -> Run<Value>?

  /// `flush()` at `now`. Returns the held value, to run at once, if any.
  mutating func flushed(at now: Instant) -> Value?

  /// `cancel()`: forget the held value and all timing state. Returns the held value, to release outside the lock.
  mutating func cancelled() -> Value?

  /// Whether a call at `now` would be treated as the very first call: nothing held, no window or quiet period
  /// that could change what the next call does.
  func isAtRest(at now: Instant) -> Bool

  /// The clock went back by `jump`. Moves every instant the rule remembers back by as much, so that the step
  /// counts as no time passing: a window or quiet period keeps the time it had left.
  mutating func clockWentBack(by jump: Duration)
}

extension TimingRule {
  /// Whether a value is held back waiting for its deadline.
  @inlinable var isPending: Bool { deadline != nil }

  /// A call that may run at once, whose displaced value is simply dropped: the pure rules' tests.
  mutating func called(at now: Instant, with value: Value) -> Value? {
    var displaced: Value?
    return called(at: now, with: value, reducing: nil, mayRunAtOnce: true, displaced: &displaced)
  }
}

/// A value to hand to the queue, and the instant it is due.
@usableFromInline
struct Run<Value: Sendable>: Sendable {
  /// The value the action receives.
  @usableFromInline var value: Value
  /// The instant the run is due; the clock is asked to schedule it then.
  @usableFromInline var time: Instant

  @inlinable
  init(value: Value, time: Instant) {
    self.value = value
    self.time = time
  }
}
