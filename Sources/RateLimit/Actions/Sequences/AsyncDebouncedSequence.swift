import Dispatch

/// A sequence's elements debounced: the values a ``Debouncer`` made with the same arguments would run its action
/// with, each element a call at the instant it arrives, yielded at the instants that action would run.
///
/// ```swift
/// // Search 300 ms after the last key stroke:
/// // a stream of text, no closure object.
/// for await query in queries.debounced(
///   for: .milliseconds(300)
/// ) {
///   await model.search(query)
/// }
/// ```
///
/// The rules (SPEC 4.3) are ``Debouncer``'s, run by the same engine; what a sequence adds:
/// - **A busy consumer**: a value due while the consumer is not waiting waits for its next `next()`; at most one
///   waits, a later one replacing it (with `reducing`, combined into it, in order). Memory stays O(1) however
///   fast the base produces.
/// - **The end**: when the base finishes, the value the rule holds is yielded at once, without waiting for the
///   clock, then the sequence ends; when the base throws, that value comes first, then the error.
/// - **Cancellation**: cancelling the consuming task ends the iteration (`nil`) and stops reading the base;
///   nothing of the sequence keeps running, and a timer it left does nothing.
/// - **Each iteration its own**: every `makeAsyncIterator()` has its own rule state and its own iterator of the
///   base, which it reads from the first `next()` on, one element at a time.
public struct AsyncDebouncedSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element: Sendable {
  /// The base's elements.
  public typealias Element = Base.Element
  /// The base's error: `Never` for a base that never throws, so iterating needs no `try`.
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  public typealias Failure = Base.Failure
  /// One iteration: its own rule state, its own iterator of the base.
  public typealias AsyncIterator = AsyncRateLimitedIterator<Base>

  @usableFromInline let base: Base
  @usableFromInline let interval: Duration
  @usableFromInline let mode: DebounceMode
  @usableFromInline let maxWait: Duration?
  @usableFromInline let clock: any RateLimitClock
  @usableFromInline let reducing: Reducer<Element>?

  @usableFromInline
  init(
    base: Base, interval: Duration, mode: DebounceMode, maxWait: Duration?, clock: any RateLimitClock,
    reducing: Reducer<Element>?
  ) {
    (self.base, self.interval, self.mode, self.maxWait, self.clock) = (base, interval, mode, maxWait, clock)
    self.reducing = reducing
  }

  /// Starts an iteration: its own rule state, its own iterator of the base. Inlinable, so that the closure
  /// object's call path is made at the caller, specialized for its elements (unspecialized: twice the cost).
  @inlinable
  public func makeAsyncIterator() -> AsyncRateLimitedIterator<Base> {
    AsyncRateLimitedIterator(
      iteration: SequenceIteration(base: base, reducing: reducing, clock: clock) { queue, action in
        // The usual clock by its type, so that the call path is specialized (through the existential the whole
        // initializer, call path included, would run as unspecialized generic code: 20 times the cost).
        if let clock = clock as? DispatchClock {
          return Debouncer<Element>(
            interval: interval, mode: mode, maxWait: maxWait, queue: queue, clock: clock, reducing: reducing,
            action: action)
        }
        return Debouncer<Element>(
          interval: interval, mode: mode, maxWait: maxWait, queue: queue, clock: clock, reducing: reducing,
          action: action)
      })
  }
}

/// A sequence's elements throttled: the values a ``Throttler`` made with the same arguments would run its action
/// with, each element a call at the instant it arrives, yielded at the instants that action would run.
///
/// ```swift
/// // Count taps per 500 ms window.
/// let ones = taps.map { _ in 1 }
/// for await count in ones.throttled(
///   for: .milliseconds(500), mode: .trailing,
///   reducing: { $0 += $1 }
/// ) {
///   print(count, "taps")
/// }
/// ```
///
/// A busy consumer, the end, cancellation and each iteration: as ``AsyncDebouncedSequence``.
public struct AsyncThrottledSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element: Sendable {
  /// The base's elements.
  public typealias Element = Base.Element
  /// The base's error: `Never` for a base that never throws, so iterating needs no `try`.
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  public typealias Failure = Base.Failure
  /// One iteration: its own rule state, its own iterator of the base.
  public typealias AsyncIterator = AsyncRateLimitedIterator<Base>

  @usableFromInline let base: Base
  @usableFromInline let interval: Duration
  @usableFromInline let mode: ThrottleMode
  @usableFromInline let clock: any RateLimitClock
  @usableFromInline let reducing: Reducer<Element>?

  @usableFromInline
  init(base: Base, interval: Duration, mode: ThrottleMode, clock: any RateLimitClock, reducing: Reducer<Element>?) {
    (self.base, self.interval, self.mode, self.clock, self.reducing) = (base, interval, mode, clock, reducing)
  }

  /// Starts an iteration: its own rule state, its own iterator of the base. Inlinable, so that the closure
  /// object's call path is made at the caller, specialized for its elements (unspecialized: twice the cost).
  @inlinable
  public func makeAsyncIterator() -> AsyncRateLimitedIterator<Base> {
    AsyncRateLimitedIterator(
      iteration: SequenceIteration(base: base, reducing: reducing, clock: clock) { queue, action in
        // The usual clock by its type, so that the call path is specialized (see `AsyncDebouncedSequence`).
        if let clock = clock as? DispatchClock {
          return Throttler<Element>(
            interval: interval, mode: mode, queue: queue, clock: clock, reducing: reducing, action: action)
        }
        return Throttler<Element>(
          interval: interval, mode: mode, queue: queue, clock: clock, reducing: reducing, action: action)
      })
  }
}

extension AsyncSequence where Self: Sendable, Element: Sendable {
  /// The values a ``Debouncer`` made with these arguments would run its action with, each element of this
  /// sequence being a call at the instant it arrives; see ``AsyncDebouncedSequence``.
  ///
  /// - Parameters:
  ///   - interval: T, the quiet period; must not be negative (a trap names the value).
  ///   - mode: Which elements go through and when; ``DebounceMode/trailing`` by default.
  ///   - maxWait: The longest a burst holds a value back (`nil`: unbounded); must not be negative.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default, a ``ManualClock`` in tests.
  ///   - reducing: How an element joins the held value (`reducing(&held, element)`); `nil`: the latest wins.
  public func debounced(
    for interval: Duration, mode: DebounceMode = .trailing, maxWait: Duration? = nil,
    clock: some RateLimitClock = .dispatch,
    reducing: (@Sendable (inout Element, Element) -> Void)? = nil
  ) -> AsyncDebouncedSequence<Self> {
    requireNonNegative(interval, "interval", of: "debounced")
    if let maxWait { requireNonNegative(maxWait, "maxWait", of: "debounced") }
    return AsyncDebouncedSequence(
      base: self, interval: interval, mode: mode, maxWait: maxWait, clock: clock, reducing: reducing)
  }

  /// The same with a ``Throttler``'s rules; see ``AsyncThrottledSequence``.
  ///
  /// - Parameters:
  ///   - interval: T, the minimum time between values; must not be negative (a trap names the value).
  ///   - mode: Which elements go through and when; ``ThrottleMode/leading`` by default.
  ///   - clock: Time source and timer; the real ``DispatchClock`` by default, a ``ManualClock`` in tests.
  ///   - reducing: How an element joins the held value where the mode holds one; `nil`: the latest wins.
  public func throttled(
    for interval: Duration, mode: ThrottleMode = .leading, clock: some RateLimitClock = .dispatch,
    reducing: (@Sendable (inout Element, Element) -> Void)? = nil
  ) -> AsyncThrottledSequence<Self> {
    requireNonNegative(interval, "interval", of: "throttled")
    return AsyncThrottledSequence(base: self, interval: interval, mode: mode, clock: clock, reducing: reducing)
  }
}
