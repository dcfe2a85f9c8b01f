/// The members ``Throttler`` and ``Debouncer`` share, written once: each forwards to the limiter's engine, whatever
/// its rule. The call path is not among them: `call(_:)` stays in each façade, specialized for its `Value`.
///
/// Not API: the protocol and its handle are public only so that their default implementations can be the
/// façades' public members; the leading underscore keeps both out of the documentation.
public protocol _EngineBackedLimiter: ActionLimiter {
  /// The limiter's engine.
  var _engine: _EngineHandle { get }
}

/// Not API: a limiter's engine, seen through what every engine offers its façade.
public struct _EngineHandle: @unchecked Sendable {
  // @unchecked Sendable: an Engine is thread-safe, every mutable byte guarded by its own mutex (see `Engine`).
  let engine: any EngineControls

  init(_ engine: some EngineControls) {
    self.engine = engine
  }
}

/// What every ``Engine`` offers its façade, whatever its rule.
protocol EngineControls: AnyObject {
  func flush() -> Bool
  func cancel()
  func finish()
  func invalidate()
  var isPending: Bool { get }
  var isRunning: Bool { get }
  var isAtRest: Bool { get }
  func waitUntilIdle() async
}

extension Engine: EngineControls {}

extension _EngineBackedLimiter {
  /// Runs held-back work now: if a value is held, hands it over at once (it starts even if ``invalidate()``
  /// follows, and an async run is subject to ``Overlap``) and goes on as if that run had happened at its
  /// deadline: ``ThrottleMode/firstPerDuration`` opens a new window of T from now; the trailing modes are idle,
  /// so a debouncer's next call starts a new burst with a new `maxWait` anchor.
  ///
  /// - Returns: `true` if a held value was handed over, `false` if nothing was held.
  @discardableResult
  public func flush() -> Bool {
    _engine.engine.flush()
  }

  /// Drops the held value and all timing state; the next call behaves like the very first. A run handed over
  /// whose action has not started yet does not start, flushed or not; a running async run's task is cancelled.
  /// See ``ActionLimiter/cancel()``.
  public func cancel() {
    _engine.engine.cancel()
  }

  /// Teardown that loses nothing: flushes the held value, ignores later calls, lets every run in flight finish,
  /// then releases the action. See ``ActionLimiter/finish()``.
  public func finish() {
    _engine.engine.finish()
  }

  /// Whether a fresh limiter would behave exactly as this one from now on. See ``ActionLimiter/isAtRest``.
  public var isAtRest: Bool {
    _engine.engine.isAtRest
  }

  /// Drops everything for good; see ``ActionLimiter/invalidate()``.
  public func invalidate() {
    _engine.engine.invalidate()
  }

  /// Whether a value is held back waiting for its deadline (the leading modes never hold one).
  public var isPending: Bool {
    _engine.engine.isPending
  }

  /// Whether a run was handed over and its action has not returned; see ``ActionLimiter/isRunning``.
  public var isRunning: Bool {
    _engine.engine.isRunning
  }

  /// Returns once ``isRunning`` is false; see ``ActionLimiter/waitUntilIdle()``.
  public func waitUntilIdle() async {
    await _engine.engine.waitUntilIdle()
  }
}
