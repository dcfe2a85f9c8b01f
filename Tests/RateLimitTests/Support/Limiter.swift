import Dispatch
import RateLimit

/// The common surface of ``Throttler`` and ``Debouncer``, so one test can drive either.
protocol Limiting<Value>: AnyObject, Sendable {
  associatedtype Value: Sendable
  func call(_ value: Value)
  func flush()
  func cancel()
  func invalidate()
  var isPending: Bool { get }
}

extension Throttler: Limiting {}
extension Debouncer: Limiting {}

/// The limiter of `kind` with these settings, so that one test can go through all five. `maxWait` is ignored by
/// throttlers.
func makeLimiter<Value: Sendable>(
  _ kind: LimiterKind, interval: Duration, maxWait: Duration? = nil, queue: DispatchQueue = .main,
  clock: some RateLimitClock, action: @escaping @Sendable (Value) -> Void
) -> any Limiting<Value> {
  switch kind {
  case .throttleLeading: Throttler(interval: interval, mode: .leading, queue: queue, clock: clock, action: action)
  case .throttleTrailing: Throttler(interval: interval, mode: .trailing, queue: queue, clock: clock, action: action)
  case .firstPerDuration:
    Throttler(interval: interval, mode: .firstPerDuration, queue: queue, clock: clock, action: action)
  case .debounceLeading:
    Debouncer(interval: interval, mode: .leading, maxWait: maxWait, queue: queue, clock: clock, action: action)
  case .debounceTrailing:
    Debouncer(interval: interval, mode: .trailing, maxWait: maxWait, queue: queue, clock: clock, action: action)
  }
}
