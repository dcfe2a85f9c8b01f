import Dispatch

/// Adapts a main-actor action to the engine's `@Sendable` action.
enum MainActorAction {
  /// Marks the main queue, so that ``isOnMainQueue`` can ask without Foundation and without trapping.
  private static let mainQueueKey: DispatchSpecificKey<Void> = {
    let key = DispatchSpecificKey<Void>()
    DispatchQueue.main.setSpecific(key: key, value: ())
    return key
  }()

  /// Whether the current code runs on the main queue (and so on the main actor).
  static var isOnMainQueue: Bool {
    DispatchQueue.getSpecific(key: mainQueueKey) != nil
  }

  /// Returns an action that runs `action` on the main actor: inline when already on the main queue (always the
  /// case with ``DispatchClock``, which hands work to `.main`), otherwise by hopping to the main queue rather than
  /// breaking isolation.
  ///
  /// The hop waits for the action (`sync`) when the clock is a ``ManualClock`` advanced off the main thread, so
  /// that a test sees the run when `advance` returns, as it would inline; with any other clock it does not wait
  /// (`async`), so a clock thread can never deadlock against a blocked main thread.
  static func wrap<Value: Sendable>(
    _ action: @escaping @MainActor (Value) -> Void, clock: some RateLimitClock
  ) -> @Sendable (Value) -> Void {
    _ = mainQueueKey
    let waits = clock is ManualClock
    return { value in
      if isOnMainQueue {
        MainActor.assumeIsolated { action(value) }
      } else if waits {
        DispatchQueue.main.sync { MainActor.assumeIsolated { action(value) } }
      } else {
        DispatchQueue.main.async { MainActor.assumeIsolated { action(value) } }
      }
    }
  }
}
