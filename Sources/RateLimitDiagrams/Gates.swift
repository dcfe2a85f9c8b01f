import Dispatch

/// The runs of one async row, each waiting at a gate the player opens when its time is up; a run whose task is
/// cancelled returns at once. Locked by a serial queue; continuations are resumed outside it.
final class Gates: @unchecked Sendable {
  // @unchecked Sendable: every stored `var` is only touched on `lock` (a serial queue, with `sync`).
  private let lock = DispatchQueue(label: "RateLimitDiagrams.Gates")
  private var log: [(run: RowOutcome.Run, released: Bool, waiting: CheckedContinuation<Void, Never>?)] = []
  private var version = 0
  private var watchers: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
  private var lastWatcher = 0
  private var tick = 0

  /// The tick being played, recorded as a run's start or end.
  var now: Int {
    get { lock.sync { tick } }
    set { lock.sync { tick = newValue } }
  }

  /// Every run so far.
  var runs: [RowOutcome.Run] { lock.sync { log.map(\.run) } }

  /// A number that changes whenever a run starts or returns, and whether the library is steady: the last run
  /// has started and waits for its time (not released, not cancelled).
  var state: (version: Int, isSteady: Bool) {
    lock.sync {
      guard let last = log.last else { return (version, false) }
      return (version, last.run.end == nil && !last.released && !last.run.cancelled)
    }
  }

  /// The action: starts, waits at the gate, returns.
  func run(_ value: String) async {
    let index = lock.sync {
      log.append((RowOutcome.Run(start: tick, value: value), false, nil))
      return log.count - 1
    }
    changed()
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let open = lock.sync {
          if log[index].released || Task.isCancelled { return true }
          log[index].waiting = continuation
          return false
        }
        if open { continuation.resume() }
      }
    } onCancel: {
      let waiting = lock.sync {
        log[index].run.cancelled = true
        defer { log[index].waiting = nil }
        return log[index].waiting
      }
      waiting?.resume()
    }
    lock.sync {
      log[index].run.end = tick
      log[index].run.cancelled = Task.isCancelled
    }
    changed()
  }

  /// Opens the gates of the runs that started at or before `tick`.
  func release(startedBy tick: Int) {
    let opened: [CheckedContinuation<Void, Never>] = lock.sync {
      var opened: [CheckedContinuation<Void, Never>] = []
      for index in log.indices where log[index].run.start <= tick && !log[index].released {
        log[index].released = true
        if let waiting = log[index].waiting { opened.append(waiting) }
        log[index].waiting = nil
      }
      return opened
    }
    opened.forEach { $0.resume() }
  }

  /// Returns once `state.version` has moved past `version`, or when the calling task is cancelled.
  func change(after version: Int) async {
    let id = lock.sync {
      lastWatcher += 1
      return lastWatcher
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let moved = lock.sync {
          if self.version != version || Task.isCancelled { return true }
          watchers.append((id, continuation))
          return false
        }
        if moved { continuation.resume() }
      }
    } onCancel: {
      let watcher = lock.sync { watchers.firstIndex { $0.id == id }.map { watchers.remove(at: $0).continuation } }
      watcher?.resume()
    }
  }

  private func changed() {
    let woken = lock.sync {
      version += 1
      defer { watchers = [] }
      return watchers.map(\.continuation)
    }
    woken.forEach { $0.resume() }
  }
}

/// A log of synchronous runs; locked.
final class Log: @unchecked Sendable {
  // @unchecked Sendable: `stored` is only touched on `lock` (a serial queue, with `sync`).
  private let lock = DispatchQueue(label: "RateLimitDiagrams.Log")
  private var stored: [RowOutcome.Run] = []

  func append(_ run: RowOutcome.Run) { lock.sync { stored.append(run) } }
  var runs: [RowOutcome.Run] { lock.sync { stored } }
}
