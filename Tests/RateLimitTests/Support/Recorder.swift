@testable import RateLimit

/// A thread-safe log of the runs an action made: each value with the clock's `now` when it ran.
final class Recorder<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `log` is only touched inside `lock.withLock`.
  private let lock = Lock()
  private var log: [(time: Duration, value: Value)] = []

  /// Records `value` as run at `time`.
  func record(_ value: Value, at time: Duration = .zero) {
    lock.withLock { log.append((time, value)) }
  }

  /// Every run so far, in order.
  var runs: [(time: Duration, value: Value)] { lock.withLock { log } }
  /// The values of every run so far, in order.
  var values: [Value] { lock.withLock { log.map(\.value) } }
  /// The times of every run so far, in order.
  var times: [Duration] { lock.withLock { log.map(\.time) } }
  /// How many runs so far.
  var count: Int { lock.withLock { log.count } }
}

/// An object whose lifetime a test watches through a `weak` reference, to prove that an action's captures are freed.
final class Owner: Sendable {
  func touch() {}
}
