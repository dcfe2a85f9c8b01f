@testable import RateLimit

/// A stand-in for an async action that tests control: every run records its start, then waits at a gate until
/// the test opens it (or, if the gate notices cancellation, until its task is cancelled), then records how it
/// ended. The test awaits a run's arrival instead of sleeping or yielding.
final class Gate<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: every stored `var` is only touched inside `lock.withLock`; continuations are resumed
  // outside it.

  /// One run as the gate saw it.
  struct Run: Equatable, CustomStringConvertible {
    let value: Value
    /// What `startTime` said when it started (a ``ManualClock``'s `now`, say); `.zero` if nothing was given.
    var startedAt = Duration.zero
    /// Whether its task was cancelled by the time it returned.
    var wasCancelled = false
    var returned = false

    static func == (lhs: Run, rhs: Run) -> Bool {
      "\(lhs.value)" == "\(rhs.value)" && lhs.wasCancelled == rhs.wasCancelled && lhs.returned == rhs.returned
    }
    var description: String { "\(value)\(wasCancelled ? " (cancelled)" : "")\(returned ? "" : " (running)")" }
  }

  private let lock = Lock()
  private let noticesCancellation: Bool
  private var log: [Run] = []
  private var opened: Set<Int> = []
  private var waitingAtGate: [Int: CheckedContinuation<Void, Never>] = [:]
  private var waiters:
    [(id: Int, condition: @Sendable ([Run]) -> Bool, continuation: CheckedContinuation<Void, Never>)] =
      []
  private var nextWaiterID = 0
  private var running = 0
  private var overlapped = false

  /// - Parameter noticesCancellation: Whether a run waiting at the gate returns as soon as its task is cancelled
  ///   (as cancellation-aware APIs do), or only when the test opens the gate.
  init(noticesCancellation: Bool = true, startTime: (@Sendable () -> Duration)? = nil) {
    self.noticesCancellation = noticesCancellation
    self.startTime = startTime
  }

  private let startTime: (@Sendable () -> Duration)?

  /// The action: records the start, waits at the gate, records the end.
  func run(_ value: Value) async {
    let index: Int = lock.withLock {
      if running > 0 { overlapped = true }
      running += 1
      log.append(Run(value: value, startedAt: startTime?() ?? .zero))
      return log.count - 1
    }
    resumeWaiters()
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let isOpen = lock.withLock {
          if opened.contains(index) || (noticesCancellation && Task.isCancelled) { return true }
          waitingAtGate[index] = continuation
          return false
        }
        if isOpen { continuation.resume() }
      }
    } onCancel: {
      if noticesCancellation { release(index) }
    }
    lock.withLock {
      log[index].wasCancelled = Task.isCancelled
      log[index].returned = true
      running -= 1
    }
    resumeWaiters()
  }

  /// Returns once `count` runs have started, or when the calling task is cancelled.
  func arrival(of count: Int) async {
    await until { $0.count >= count }
  }

  /// Returns once every run that started has returned, or when the calling task is cancelled.
  func allReturned() async {
    await until { $0.allSatisfy(\.returned) }
  }

  /// Returns once `condition` holds for the runs so far, or when the calling task is cancelled.
  private func until(_ condition: @escaping @Sendable ([Run]) -> Bool) async {
    let id = lock.withLock {
      nextWaiterID += 1
      return nextWaiterID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let holds = lock.withLock {
          if condition(log) || Task.isCancelled { return true }
          waiters.append((id, condition, continuation))
          return false
        }
        if holds { continuation.resume() }
      }
    } onCancel: {
      let waiter = lock.withLock {
        waiters.firstIndex { $0.id == id }.map { waiters.remove(at: $0).continuation }
      }
      waiter?.resume()
    }
  }

  /// Whether the run that started `index`-th has returned.
  func hasReturned(_ index: Int) -> Bool { lock.withLock { index < log.count && log[index].returned } }

  /// Opens the gate of the run that started `index`-th (0 being the first).
  func open(_ index: Int) {
    release(index)
  }

  /// Every run so far, in the order they started.
  var runs: [Run] { lock.withLock { log } }
  /// The values of the runs so far, in the order they started.
  var started: [Value] { lock.withLock { log.map(\.value) } }
  /// Whether two runs were ever running at once.
  var sawOverlap: Bool { lock.withLock { overlapped } }

  private func release(_ index: Int) {
    let continuation = lock.withLock {
      opened.insert(index)
      return waitingAtGate.removeValue(forKey: index)
    }
    continuation?.resume()
  }

  private func resumeWaiters() {
    let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
      let ready = waiters.filter { $0.condition(log) }.map(\.continuation)
      waiters.removeAll { $0.condition(log) }
      return ready
    }
    ready.forEach { $0.resume() }
  }
}
