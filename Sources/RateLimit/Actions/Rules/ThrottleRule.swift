/// The three throttle rules of SPEC's table, side by side. Pure: no locks, no clocks, no queues.
///
/// `windowEnd` is the end of the current window: for `.leading` the first instant a call may run again, for
/// `.trailing` the instant the held value runs, for `.firstPerDuration` the instant the window opened by the
/// last run closes. Before the first call and after `cancel()` it is ``Instant/distantPast``: no window is open.
///
/// The stored properties are declared in the order that packs them tightest (an instance is part of every
/// throttler's memory).
@usableFromInline
struct ThrottleRule<Value: Sendable>: TimingRule {
  /// The value of the calls that did not run at once: the latest, or all of them combined with `reducing`.
  @usableFromInline var held: HeldValue<Value>
  @usableFromInline let mode: ThrottleMode
  @usableFromInline let interval: Duration
  /// See the type's comment.
  @usableFromInline var windowEnd = Instant.distantPast

  @usableFromInline
  init(mode: ThrottleMode, interval: Duration) {
    self.mode = mode
    self.interval = interval
    self.held = HeldValue()
  }

  @inlinable
  @inline(__always) var deadline: Instant? { held.isEmpty ? nil : windowEnd }

  @inlinable @inline(__always)
  mutating func called(
    at now: Instant, with value: Value, reducing reduce: @autoclosure () -> Reducer<Value>?,
    mayRunAtOnce: @autoclosure () -> Bool,
    displaced: inout Value?
  ) -> Value? {
    switch mode {
    case .leading:
      // Runs if nothing ran in the last T (`now - lastRun >= T`), else dropped.
      if now < windowEnd || !mayRunAtOnce() { return nil }
      windowEnd = now + interval
      return value
    case .trailing:
      // A call while idle opens [now, now + T); every call inside replaces (or joins) the held value.
      if held.isEmpty { windowEnd = now + interval }
      held.add(value, reducing: reduce(), displacing: &displaced)
      return nil
    case .firstPerDuration:
      // Runs at once and opens a window when idle; held (latest wins) while a window is open.
      if now < windowEnd {
        held.add(value, reducing: reduce(), displacing: &displaced)
        return nil
      }
      if !mayRunAtOnce() { return nil }
      windowEnd = now + interval
      return value
    }
  }

  @inlinable @inline(__always)
  mutating func calledMidBurst(
    at now: Instant, with value: Value, reducing reduce: @autoclosure () -> Reducer<Value>?, displaced: inout Value?
  ) -> Bool {
    // `.leading` inside the window: dropped, nothing changes.
    if mode == .leading { return now < windowEnd }
    // `.trailing` and `.firstPerDuration` inside the window with a value held: it joins.
    guard !held.isEmpty, now < windowEnd else { return false }
    held.add(value, reducing: reduce(), displacing: &displaced)
    return true
  }

  @inlinable
  mutating func deadlineReached() -> Run<Value>? {
    guard let value = held.take() else { return nil }
    let end = windowEnd
    // firstPerDuration: the held value runs at the window's end and opens a new window from that run.
    if mode == .firstPerDuration { windowEnd = end + interval }
    return Run(value: value, time: end)
  }

  @usableFromInline
  mutating func flushed(at now: Instant) -> Value? {
    guard let value = held.take() else { return nil }
    // As if the run had happened at its deadline: firstPerDuration opens a new window from now,
    // trailing is idle (nothing held).
    if mode == .firstPerDuration { windowEnd = now + interval }
    return value
  }

  @usableFromInline
  mutating func cancelled() -> Value? {
    windowEnd = .distantPast
    return held.take()
  }

  @usableFromInline
  func isAtRest(at now: Instant) -> Bool {
    // `.trailing` only remembers its window while it holds a value.
    held.isEmpty && (mode == .trailing || !(now < windowEnd))
  }

  @usableFromInline
  mutating func clockWentBack(by jump: Duration) {
    windowEnd = windowEnd - jump
  }
}
