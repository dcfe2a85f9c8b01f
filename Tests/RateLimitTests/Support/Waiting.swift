#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Blocks the calling thread for `milliseconds`. Only for the few tests on the real ``DispatchClock``.
func usleepMilliseconds(_ milliseconds: UInt32) {
  usleep(milliseconds * 1_000)
}

/// Polls `condition` every millisecond until it holds or `seconds` have passed (a generous bound for tests
/// on the real clock; the assertions that follow are exact).
func waitUntil(
  seconds: Int, isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool
) async {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while !condition(), ContinuousClock.now < deadline {
    try? await Task.sleep(for: .milliseconds(1))
  }
}
