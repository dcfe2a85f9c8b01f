/// The overlap policy of an async action as a pure state machine: which run is running, which one waits, and
/// what a run that comes due meanwhile does. No locks, no tasks: ``Engine`` asks it under its lock and carries
/// out the answer (start a task, cancel one).
///
/// ```
/// a's action takes 5 ticks
/// runs due      a . b . c . . . . .
/// waitFor…      a . . . . c . . . .   b waits; c replaces it
/// cancel…       a . . . . c . . . .   the same; a cancelled at b and c
/// dropNew       a . . . . . . . . .   b and c are dropped
/// ```
///
/// At most one run waits; a run that comes due while another waits replaces it, or with a reducer is combined
/// into it. Runs never overlap: the next one starts only when the running one has returned.
@usableFromInline
struct OverlapSlot<Value: Sendable>: Sendable {
  /// What a run that comes due does.
  @usableFromInline
  enum Decision: Sendable {
    /// Nothing is running: start it now.
    case start(HandedRun<Value>)
    /// It waits for the running run to return (replacing or joining a waiting one).
    case wait
    /// It is dropped (`.dropNew`).
    case drop
  }

  @usableFromInline let overlap: Overlap
  /// A run was started and its action has not returned. (A run waits only while one runs, so this is also the
  /// async part of the limiter's `isRunning`.)
  @usableFromInline var isRunning = false
  /// The running run was made by `flush()`: `invalidate()` does not cancel it.
  @usableFromInline var runningIsFlushed = false
  /// The run waiting for the running one to return.
  @usableFromInline var waiting = HeldValue<Value>()
  /// The user's `reducing`: how a run that comes due joins the waiting one.
  @usableFromInline let reduce: Reducer<Value>?
  /// The waiting run holds a flushed value: `invalidate()` keeps it.
  @usableFromInline var waitingIsFlushed = false

  @usableFromInline
  init(overlap: Overlap, reduce: Reducer<Value>?) {
    self.overlap = overlap
    self.reduce = reduce
  }

  /// Whether a flushed run waits (so the action must be kept for it after `invalidate()`).
  @inlinable var hasFlushedWaiting: Bool { waitingIsFlushed && !waiting.isEmpty }

  /// Whether a run that comes due now would start rather than be dropped: `false` only for `.dropNew` while a
  /// run is running.
  @inlinable var acceptsRun: Bool { !isRunning || overlap != .dropNew }

  /// `run` comes due. Returns what it does, and whether the running run's task is to be cancelled. A value it
  /// drops or replaces goes to `discarded`, to be released outside the lock.
  @inlinable
  mutating func due(_ run: HandedRun<Value>, discarding discarded: inout Value?) -> (Decision, cancelRunning: Bool) {
    guard isRunning else {
      isRunning = true
      runningIsFlushed = run.isFlushed
      return (.start(run), false)
    }
    switch overlap {
    case .dropNew:
      discarded = run.value
      return (.drop, false)
    case .waitForPrevious, .cancelPrevious:
      let reduce = self.reduce
      waiting.add(run.value, reducing: reduce, displacing: &discarded)
      // A flushed value stays delivered even if a newer run joins or replaces it: nothing is lost.
      waitingIsFlushed = waitingIsFlushed || run.isFlushed
      return (.wait, overlap == .cancelPrevious)
    }
  }

  /// The running run's action returned. Returns the waiting run, which starts now, if there is one.
  @usableFromInline
  mutating func runReturned() -> HandedRun<Value>? {
    guard let value = waiting.take() else {
      isRunning = false
      runningIsFlushed = false
      return nil
    }
    runningIsFlushed = waitingIsFlushed
    waitingIsFlushed = false
    return HandedRun(value: value, isFlushed: runningIsFlushed)
  }

  /// `cancel()`: the waiting run is dropped, flushed or not (its value goes to `discarded`). Returns whether the
  /// running run's task is to be cancelled.
  @usableFromInline
  mutating func cancelled(discarding discarded: inout Value?) -> Bool {
    discarded = waiting.take()
    waitingIsFlushed = false
    return isRunning
  }

  /// `invalidate()`: a waiting run is dropped unless it is flushed (its value goes to `discarded`). Returns
  /// whether the running run's task is to be cancelled: yes, unless it is a flushed run.
  @usableFromInline
  mutating func invalidated(discarding discarded: inout Value?) -> Bool {
    if !waitingIsFlushed { discarded = waiting.take() }
    return isRunning && !runningIsFlushed
  }

  /// `finish()`: the running run and the waiting one are kept as flushed runs are, so that deallocation after
  /// `finish()` stops nothing.
  @usableFromInline
  mutating func finished() {
    runningIsFlushed = isRunning
    waitingIsFlushed = !waiting.isEmpty
  }
}
