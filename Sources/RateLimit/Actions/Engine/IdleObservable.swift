/// A library limiter that can tell ``Keyed`` when it becomes idle, so that a limiter that comes to rest when its
/// last run returns is released then rather than during a later sweep.
protocol IdleObservable {
  /// Calls `observer`, outside the limiter's lock, each time the limiter becomes idle.
  func observeIdle(_ observer: @escaping @Sendable () -> Void)
}

extension Throttler: IdleObservable {
  func observeIdle(_ observer: @escaping @Sendable () -> Void) { engine.observeIdle(observer) }
}

extension Debouncer: IdleObservable {
  func observeIdle(_ observer: @escaping @Sendable () -> Void) { engine.observeIdle(observer) }
}
