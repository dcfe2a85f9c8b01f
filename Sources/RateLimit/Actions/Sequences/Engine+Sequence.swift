/// What an async sequence (``AsyncDebouncedSequence``, ``AsyncThrottledSequence``) needs of an engine beyond
/// a closure object's members: its end, which yields at once what is left instead of waiting for the clock.
extension Engine {
  /// The base ended: flushes the held value (as `finish()` does) and takes every run not yet started, in the
  /// order the rules decided them, instead of handing them to the queue; later calls are ignored and the action
  /// is let go. A delivery already scheduled for one of them finds nothing to start.
  func takeRemainingRuns() -> [Value] {
    var handOff = HandOff()
    var discarded: (Value?, Value?)
    let (runs, released) = withState { state -> ([Value], Action<Value>?) in
      guard state.pointee.acceptsCalls else { return ([], nil) }
      _ = state.pointee.flush(into: &handOff, discarding: &discarded, engine: self)
      var runs: [Value] = []
      while let run = state.pointee.handed.popFirst() { runs.append(run.value) }
      state.pointee.acceptsCalls = false
      return (runs, state.pointee.action.take())
    }
    // A synchronous action hands nothing to `handOff` but deliveries, which were just taken: nothing to carry out.
    _ = (released, discarded)
    return runs
  }
}

/// The closure objects an async sequence runs on: ``Debouncer`` and ``Throttler``, the same engines.
@usableFromInline
protocol SequenceLimiter<Value>: AnyObject, Sendable {
  associatedtype Value: Sendable
  func call(_ value: Value)
  func invalidate()
  /// ``Engine/takeRemainingRuns()``.
  func takeRemainingRuns() -> [Value]
  /// Returns once no run is handed over and not yet delivered.
  func waitUntilIdle() async
}

extension Debouncer: SequenceLimiter {
  @usableFromInline func takeRemainingRuns() -> [Value] { engine.takeRemainingRuns() }
}

extension Throttler: SequenceLimiter {
  @usableFromInline func takeRemainingRuns() -> [Value] { engine.takeRemainingRuns() }
}
