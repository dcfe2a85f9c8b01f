/// A sliding window's `update` (SPEC 4.2): the bookings it holds at the update, those in (now − old T, ∞), count
/// against the new limit and window; those that had left the old window stay forgotten. No key's log changes:
/// the window keeps the instant up to which bookings are forgotten (``floor``), so an update is O(1) however
/// many keys are held.
///
/// ```
/// N = 2, T = 4; at 6: T = 8       0 1 2 3 4 5 6 7
/// bookings                        a . . b . . .
/// at 6, (−2, 6] holds b; a had left (0 ≤ 2): one more is granted at 6
/// ```
/// ```
extension SlidingWindow {
  func updated(to parameters: PermitParameters, at now: Int64) -> Self {
    SlidingWindow(
      limit: parameters.limit, window: Nanoseconds.window(parameters.window), floor: start(of: now))
  }

  /// Nothing to bring: a log is the same under any window (``floor`` does the forgetting).
  func adopt(_ log: inout Log, from old: Self, at now: Int64) {}

  static var adoptsStates: Bool { false }
}
