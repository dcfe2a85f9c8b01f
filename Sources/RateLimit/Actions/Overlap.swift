/// What a run of an async action does when the previous run of the same object has not returned yet.
///
/// The timing rules decide *when* runs are due, exactly as for a synchronous action; `Overlap` decides what a
/// due run does while the previous one is still running. Runs of one object never overlap, and they start in
/// the order the rules decided them. At most one run waits: a run that comes due while another waits replaces
/// it (or, with `reducing`, is combined into it).
///
/// ```
/// a's action takes 5 ticks
/// runs due      a . b . c . . . . .
/// waitFor…      a . . . . c . . . .   b waits; c replaces it
/// cancel…       a . . . . c . . . .   the same, and a is cancelled
/// dropNew       a . . . . . . . . .   b and c are dropped
/// ```
///
/// ![The three overlap policies on runs due while an async action runs.](overlap)
///
/// There is no default: the right choice depends on the work.
public enum Overlap: Sendable, Hashable, CaseIterable {
  /// Start once the previous run returns. Saving or uploading: every batch goes out, one at a time.
  case waitForPrevious
  /// Cancel the previous run's task (Swift task cancellation), then start once it returns. Search as you type:
  /// an older query never writes its results after a newer one.
  case cancelPrevious
  /// Do not start at all; the value is not delivered. A submit button: no second order while one is in flight.
  case dropNew
}
