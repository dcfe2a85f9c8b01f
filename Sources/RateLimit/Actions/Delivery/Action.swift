public import Dispatch

/// An async action as the engine keeps it: where it runs, and a body that runs on its caller's executor.
///
/// Kept apart so that the engine can check, on the action's own executor and as the very last thing, that the
/// limiter is still valid, then enter the body with no hop in between (a `nonisolated(nonsending)` body runs
/// where it is called). The user's closure runs where a `Task { }` written at the same place would: its
/// isolation is taken from the closure (`@isolated(any)`, inherited from the context by
/// `@_inheritActorContext` at the initializer). A class, so that ``Action`` (and every engine) spends 8 bytes on
/// it, not 32: a synchronous limiter, the usual kind, pays nothing for it.
@usableFromInline
final class AsyncAction<Value: Sendable>: Sendable {
  /// The actor the user's closure is isolated to; `nil` for the global concurrent executor.
  let isolation: (any Actor)?
  /// Calls the user's closure; runs on its caller's executor.
  let body: nonisolated(nonsending) @Sendable (Value) async -> Void

  /// The user's closure, run where it is isolated.
  @usableFromInline
  init(_ action: @escaping @isolated(any) @Sendable (Value) async -> Void) {
    isolation = action.isolation
    body = { value in await action(value) }
  }

  /// A closure without a value, run where it is isolated, adapted to `Void`.
  @usableFromInline
  init(_ action: @escaping @isolated(any) @Sendable () async -> Void) where Value == Void {
    isolation = action.isolation
    body = { (_: Void) in await action() }
  }
}

/// The user's action and how a run reaches it: what differs between synchronous and async limiters.
@usableFromInline
enum Action<Value: Sendable>: Sendable {
  /// A synchronous action, handed to its queue; runs start there in the order they were decided.
  case sync(@Sendable (Value) -> Void)
  /// An async action, started as a task under an ``Overlap`` policy.
  case async(AsyncAction<Value>)
}

/// Where a limiter's action runs: the façades' initializers build one, the engine takes it apart.
@usableFromInline
struct ActionTarget<Value: Sendable>: Sendable {
  /// The queue runs (synchronous) or timers (async) are handed to.
  let queue: DispatchQueue
  let action: Action<Value>
  /// The overlap policy; `nil` for a synchronous action.
  let overlap: Overlap?

  /// A synchronous action run on `queue`.
  @usableFromInline
  static func queue(_ queue: DispatchQueue, _ action: @escaping @Sendable (Value) -> Void) -> Self {
    Self(queue: queue, action: .sync(action), overlap: nil)
  }

  /// A synchronous action run on the main actor.
  @usableFromInline
  static func mainActor(_ action: @escaping @MainActor (Value) -> Void, clock: some RateLimitClock) -> Self {
    .queue(.main, MainActorAction.wrap(action, clock: clock))
  }

  /// An async action started as a task. Its timers fire on a global queue: they only decide, under the lock,
  /// and start tasks.
  @usableFromInline
  static func tasks(_ overlap: Overlap, _ action: AsyncAction<Value>) -> Self {
    Self(queue: .global(), action: .async(action), overlap: overlap)
  }
}
