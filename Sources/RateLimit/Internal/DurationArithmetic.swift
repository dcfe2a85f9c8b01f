extension Duration {
  /// The largest representable duration, used where a sum would overflow.
  static let saturatedMax = Duration(secondsComponent: .max, attosecondsComponent: 999_999_999_999_999_999)

  /// `self + other` for a non-negative `other`, clamped to ``saturatedMax`` instead of trapping on overflow,
  /// so that a huge interval (say `.seconds(Int64.max)`) means "never" rather than a crash.
  @inline(__always)
  func saturatingAdding(_ other: Duration) -> Duration {
    self > Duration.saturatedMax - other ? Duration.saturatedMax : self + other
  }
}
