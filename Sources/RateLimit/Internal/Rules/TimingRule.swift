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
  mutating func called(at now: Instant, with value: Value) -> Value?

  /// ``deadline`` has been reached. Returns the held value, to run at that deadline.
  mutating func deadlineReached() -> Run<Value>?

  /// `flush()` at `now`. Returns the held value, to run at once, if any.
  mutating func flushed(at now: Instant) -> Value?

  /// `cancel()`: forget the held value and all timing state.
  mutating func cancelled()

  /// The clock went back by `jump`. Moves every instant the rule remembers back by as much, so that the step
  /// counts as no time passing: a window or quiet period keeps the time it had left.
  mutating func clockWentBack(by jump: Duration)
}

extension TimingRule {
  /// Whether a value is held back waiting for its deadline.
  @inlinable var isPending: Bool { deadline != nil }
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
