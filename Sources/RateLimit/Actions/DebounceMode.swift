/// When a ``Debouncer`` runs its action. T is the debouncer's interval.
///
/// The same calls through each mode (T = 3 ticks; a letter is a call or a run with that value):
///
/// ```
/// T = 3        0 1 2 3 4 5 6 7 8 9 0 1
/// calls        a b c d e f . . g . . .
/// leading      a . . . . . . . g . . .
/// trailing     . . . . . . . . f . . g
/// ```
///
/// ![The two debouncer modes on one burst of calls.](debouncer-modes)
public enum DebounceMode: Sendable, Hashable, CaseIterable {
  /// A call runs at once if no call at all came in the last T (`now - lastCall >= T`, or the first call); every
  /// call, run or not, restarts the quiet period.
  ///
  /// With `maxWait` M, a call also runs if `now - lastRun >= M`, so a never-ending stream of calls still runs
  /// every M.
  ///
  /// ```
  /// T = 3        0 1 2 3 4 5 6 7 8 9 0 1
  /// calls        a b c d e f . . g . . .
  /// runs         a . . . . . . . g . . .
  /// ```
  case leading

  /// Every call restarts a quiet period of T; the action runs T after the last call, with the latest value (with
  /// `reducing`, every call's value combined). The default.
  ///
  /// With `maxWait` M, while calls keep coming it also runs (latest value) at anchor + M, where the anchor is
  /// the first call after idle, and after such a run the anchor is that run.
  ///
  /// ```
  /// T = 3        0 1 2 3 4 5 6 7 8 9 0 1
  /// calls        a b c d e f . . g . . .
  /// runs         . . . . . . . . f . . g
  /// ```
  case trailing
}
