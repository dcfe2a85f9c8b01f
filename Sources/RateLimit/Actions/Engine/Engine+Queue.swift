/// Synchronous actions: runs handed to the action's queue, started in the order the rules decided them.
///
/// Every run the rules decide joins ``EngineState/handed`` under the lock, and one delivery block per run is
/// handed to the clock. A block that reaches the queue starts the run at the *head* of that queue, not a value
/// of its own: whether a block waited behind a slow action, or the thread that decided its run was preempted
/// before scheduling it, or a custom clock was slow, no run can start before one decided earlier. On a serial
/// queue the action therefore sees runs in decision order, and a trailing mode's last run carries the last
/// call's value.
///
/// `invalidate()` exactness: the check that the engine is still valid and the start of the action are one lock
/// section apart, with no timer, hop or other lock in between.
extension Engine {
  /// Hands one delivery block per run to the clock, each due at its run's time.
  ///
  /// Deliveries hold the engine weakly: the engine holds its clock, so a delivery a clock keeps (a `ManualClock`
  /// nobody advances) must not hold the engine. A flushed run still waiting when the engine goes away is handed
  /// to the clock again by `deinit`, holding its action itself (``handFlushedRunsOver(_:)``).
  @inlinable
  func scheduleDeliveries(_ deliveries: (Instant?, Instant?, Instant?)) {
    let state = withState { $0.pointee.schedulingState }
    let engine = WeakEngine(self)
    func schedule(_ time: Instant?) {
      guard let time else { return }
      state.schedule(at: time) { engine.object?.deliverNext() }
    }
    schedule(deliveries.0)
    schedule(deliveries.1)
    schedule(deliveries.2)
  }

  /// The engine is going away with flushed runs not yet started (it was invalidated after `flush()`, then
  /// dropped): they still start, in order, each delivery now holding the action and value itself.
  static func handFlushedRunsOver(_ state: inout EngineState<Rule>) {
    guard !state.handed.isEmpty, case .sync(let action)? = state.action ?? state.extras?.actionForFlushedRuns else {
      return
    }
    let now = state.readClock()
    while let run = state.handed.popFirst() {
      guard run.isFlushed else { continue }
      let value = run.value
      state.schedulingState.schedule(at: now) { action(value) }
    }
  }

  /// A delivery block reached the queue: starts the run at the head, if the engine is still valid (or the run
  /// was flushed), then records that it returned.
  @inlinable
  func deliverNext() {
    // Scoped so that the action and value are let go (outside the lock) before `waitUntilIdle()` is told the
    // run returned.
    do {
      var dropped: Value?
      let (next, released) = withState { state in
        (state.pointee.startNextHanded(discarding: &dropped), state.pointee.releaseUnneededAction())
      }
      _ = released
      guard let (value, action) = next else { return }
      action(value)
    }
    let (notice, released) = withState { state in
      state.pointee.executing -= 1
      return (state.pointee.idleNotice(), state.pointee.releaseUnneededAction())
    }
    _ = released
    notice.deliver()
  }
}
