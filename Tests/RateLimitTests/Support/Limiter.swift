import Dispatch
import RateLimit

/// The common surface of ``Throttler`` and ``Debouncer`` that tests drive: the library's own ``ActionLimiter``.
typealias Limiting = ActionLimiter

/// The limiter of `kind` with these settings, so that one test can go through all five. `maxWait` is ignored by
/// throttlers.
func makeLimiter<Value: Sendable>(
  _ kind: LimiterKind, interval: Duration, maxWait: Duration? = nil, queue: DispatchQueue = .main,
  clock: some RateLimitClock, reducing: (@Sendable (inout Value, Value) -> Void)? = nil,
  action: @escaping @Sendable (Value) -> Void
) -> any Limiting<Value> {
  switch kind {
  case .throttleLeading:
    Throttler(interval: interval, mode: .leading, queue: queue, clock: clock, reducing: reducing, action: action)
  case .throttleTrailing:
    Throttler(interval: interval, mode: .trailing, queue: queue, clock: clock, reducing: reducing, action: action)
  case .firstPerDuration:
    Throttler(
      interval: interval, mode: .firstPerDuration, queue: queue, clock: clock, reducing: reducing, action: action)
  case .debounceLeading:
    Debouncer(
      interval: interval, mode: .leading, maxWait: maxWait, queue: queue, clock: clock, reducing: reducing,
      action: action)
  case .debounceTrailing:
    Debouncer(
      interval: interval, mode: .trailing, maxWait: maxWait, queue: queue, clock: clock, reducing: reducing,
      action: action)
  }
}

/// The async limiter of `kind` with these settings.
func makeAsyncLimiter<Value: Sendable>(
  _ kind: LimiterKind, interval: Duration, maxWait: Duration? = nil, overlap: Overlap,
  clock: some RateLimitClock, reducing: (@Sendable (inout Value, Value) -> Void)? = nil,
  action: @escaping @Sendable (Value) async -> Void
) -> any Limiting<Value> {
  switch kind {
  case .throttleLeading:
    Throttler(interval: interval, mode: .leading, overlap: overlap, clock: clock, reducing: reducing, action: action)
  case .throttleTrailing:
    Throttler(interval: interval, mode: .trailing, overlap: overlap, clock: clock, reducing: reducing, action: action)
  case .firstPerDuration:
    Throttler(
      interval: interval, mode: .firstPerDuration, overlap: overlap, clock: clock, reducing: reducing,
      action: action)
  case .debounceLeading:
    Debouncer(
      interval: interval, mode: .leading, maxWait: maxWait, overlap: overlap, clock: clock, reducing: reducing,
      action: action)
  case .debounceTrailing:
    Debouncer(
      interval: interval, mode: .trailing, maxWait: maxWait, overlap: overlap, clock: clock, reducing: reducing,
      action: action)
  }
}
