/// When a ``Throttler`` runs its action. T is the throttler's interval.
///
/// The same calls through each mode (T = 3 ticks; a letter is a call or a run with that value):
///
/// ```
/// T = 3        0 1 2 3 4 5 6 7 8 9 0 1
/// calls        a b c d e f . . g . . .
/// leading      a . . d . . . . g . . .
/// trailing     . . . c . . f . . . . g
/// firstPer…    a . . c . . f . . g . .
/// ```
///
/// ![The three throttler modes on one burst of calls.](throttler-modes)
public enum ThrottleMode: Sendable, Hashable, CaseIterable {
  /// Runs a call at once if nothing ran in the last T (`now - lastRun >= T`, or no run yet); drops it otherwise.
  /// The default.
  ///
  /// The first tap of a double tap wins; the rest of the window is ignored. Nothing is ever held back.
  ///
  /// ```
  /// T = 3        0 1 2 3 4 5 6 7 8 9 0 1
  /// calls        a b c d e f . . g . . .
  /// runs         a . . d . . . . g . . .
  /// ```
  case leading

  /// A call while idle opens a window `[t, t + T)`; calls inside only replace the held value (with `reducing`,
  /// join it); at `t + T` the action runs once with the latest value and the throttler is idle again.
  ///
  /// At most one run per window, always with the newest value, always T after the window opened.
  ///
  /// ```
  /// T = 3        0 1 2 3 4 5 6 7 8 9 0 1
  /// calls        a b c d e f . . g . . .
  /// runs         . . . c . . f . . . . g
  /// ```
  case trailing

  /// A call while idle runs at once and opens a window of T; calls inside are held (latest wins, or with
  /// `reducing` all are combined). At the window's
  /// end a held value runs and opens a new window of T from that run; with nothing held, the throttler is idle.
  ///
  /// First call immediate, last call never lost, runs at least T apart: the mode for table reloads and
  /// progress updates.
  ///
  /// ```
  /// T = 3        0 1 2 3 4 5 6 7 8 9 0 1
  /// calls        a b c d e f . . g . . .
  /// runs         a . . c . . f . . g . .
  /// ```
  case firstPerDuration
}
