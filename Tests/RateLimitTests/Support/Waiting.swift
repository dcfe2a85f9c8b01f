import Dispatch
import Foundation

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

/// Blocks the calling thread for `microseconds`. Only for the soak on the real ``DispatchClock``.
func sleepMicroseconds(_ microseconds: UInt32) {
  usleep(microseconds)
}

/// Runs `body(0)`, `body(1)`, … `body(count - 1)` each on a thread of its own, all at once, and returns when all
/// have finished. Unlike `DispatchQueue.concurrentPerform`, which may run iterations one after another when the
/// cores are busy, every body really runs at the same time as the others.
func onSeparateThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let group = DispatchGroup()
  for index in 0..<count {
    group.enter()
    let thread = Thread {
      body(index)
      group.leave()
    }
    thread.start()
  }
  group.wait()
}
