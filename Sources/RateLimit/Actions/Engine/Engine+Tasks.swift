/// Async actions: runs started as tasks, under the overlap policy (``OverlapSlot``).
///
/// A run starts as a task created under the lock (creating a task runs no user code: it is enqueued on the
/// main actor for a main-actor action, on the global executor otherwise). The task hops to the action's
/// executor, checks there, as the last thing before the action, that the engine is still valid (or the run was
/// flushed), and enters the action with no hop in between. When
/// the action returns, the waiting run, if any, starts. Runs of one engine never overlap, so they start in the
/// order the rules decided them, and a cancelled older run can never write after a newer one started.
///
/// A task holds the engine, its action and its value; never the façade.
extension Engine {
  /// Creates the task of `run`. Called under the lock.
  ///
  /// The task is detached: a run inherits nothing from whoever happened to start it (the caller of `call`, a
  /// timer, the previous run's task): no task-local values, and the default priority. It still runs where the
  /// action is isolated.
  func startTask(_ run: HandedRun<Value>, action: AsyncAction<Value>, epoch: UInt32) -> Task<Void, Never> {
    let engine = EngineReference(self)
    let box = TaskRun(action: action, value: run.value)
    let isolation = action.isolation
    let ticket = StartTicket(isFlushed: run.isFlushed, epoch: epoch)
    if isolation is MainActor {
      // The common case in apps: start on the main actor itself, rather than on the global executor and hop.
      return Task.detached(operation: engine.mainActorOperation(box, ticket))
    }
    return Task.detached {
      await engine.perform(on: isolation, box, ticket)
    }
  }

  /// Whether a run may still start: no `cancel()` came since it was decided, and the engine was not
  /// invalidated, or the run was flushed.
  fileprivate func mayStart(_ ticket: StartTicket) -> Bool {
    withState { state in
      state.pointee.epoch == ticket.epoch && (ticket.isFlushed || state.pointee.action != nil)
    }
  }

  /// A run's action returned (or never started): the waiting run, if any, starts.
  fileprivate func asyncRunReturned() {
    let (notice, released) = withState { state in
      state.pointee.asyncRunReturned(engine: self)
      return (state.pointee.idleNotice(), state.pointee.releaseUnneededAction())
    }
    _ = released
    notice.deliver()
  }
}

extension EngineReference {
  /// The operation of a main-actor run's task: it starts on the main actor itself.
  fileprivate func mainActorOperation(
    _ box: TaskRun<Rule.Value>, _ ticket: StartTicket
  ) -> @MainActor @Sendable () async -> Void {
    { @MainActor in await perform(on: MainActor.shared, box, ticket) }
  }

  /// Runs on the action's executor: the validity check, the action, then the hand-over to the next run.
  ///
  /// The action and value are let go before the return is reported, so that whoever `waitUntilIdle()` wakes
  /// finds them released (a task's own closure would keep them until the task ends).
  fileprivate func perform(on isolation: isolated (any Actor)?, _ box: TaskRun<Rule.Value>, _ ticket: StartTicket) async
  {
    do {
      let (action, value) = box.take()
      if object.mayStart(ticket) {
        await action.body(value)
      }
    }
    object.asyncRunReturned()
  }
}

/// What a task checks before it starts its action: whether it was flushed, and the epoch it was decided in.
struct StartTicket: Sendable {
  let isFlushed: Bool
  let epoch: UInt32
}

/// The action and value of one task, which the task takes out when it starts.
final class TaskRun<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: written once in `init`, then read and cleared by `take()`, only by the one task that
  // holds the box, on one executor at a time.
  private var contents: (AsyncAction<Value>, Value)?

  init(action: AsyncAction<Value>, value: Value) {
    contents = (action, value)
  }

  /// The action and value; the box is empty afterwards.
  func take() -> (AsyncAction<Value>, Value) {
    defer { contents = nil }
    return contents!
  }
}
