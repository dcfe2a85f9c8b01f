@testable import RateLimit

/// A base sequence a test feeds one element at a time, which tells the test when it is asked for the next one:
/// since a debounced or throttled sequence asks for element k + 1 only once element k's call is made, "asked
/// k + 1 times" is "the k-th call is made". Each iteration of it reads the same feed (tests iterate it once).
final class FedSequence<Element: Sendable>: AsyncSequence, @unchecked Sendable {
  // @unchecked Sendable: every mutable property is only touched inside `lock.withLock`.
  struct FedError: Error, Equatable {}

  private let lock = Lock()
  private var pending: [Result<Element?, FedError>] = []
  private var reader: CheckedContinuation<Result<Element?, FedError>, Never>?
  private var asked = 0
  private var askedWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  /// Whether an iteration stopped reading because its task was cancelled.
  private(set) var sawCancellation = false

  func send(_ element: Element) { push(.success(element)) }
  func finish() { push(.success(nil)) }
  func fail() { push(.failure(FedError())) }

  private func push(_ item: Result<Element?, FedError>) {
    let reader = lock.withLock { () -> CheckedContinuation<Result<Element?, FedError>, Never>? in
      if let reader = self.reader.take() { return reader }
      pending.append(item)
      return nil
    }
    reader?.resume(returning: item)
  }

  /// Returns once the base has been asked for `count` elements in all.
  func waitUntilAsked(_ count: Int) async {
    await withCheckedContinuation { continuation in
      let ready = lock.withLock {
        if asked >= count { return true }
        askedWaiters.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// How many elements the base has been asked for.
  var askedCount: Int { lock.withLock { asked } }

  fileprivate func next() async throws(FedError) -> Element? {
    let item: Result<Element?, FedError> = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let (item, ready) = lock.withLock {
          () -> (Result<Element?, FedError>?, [CheckedContinuation<Void, Never>]) in
          asked += 1
          let ready = askedWaiters.filter { $0.count <= asked }.map(\.continuation)
          askedWaiters.removeAll { $0.count <= asked }
          if !pending.isEmpty { return (pending.removeFirst(), ready) }
          reader = continuation
          return (nil, ready)
        }
        for waiter in ready { waiter.resume() }
        if let item { continuation.resume(returning: item) }
      }
    } onCancel: {
      let reader = lock.withLock {
        sawCancellation = true
        return self.reader.take()
      }
      reader?.resume(returning: .success(nil))
    }
    return try item.get()
  }

  struct AsyncIterator: AsyncIteratorProtocol {
    let base: FedSequence
    mutating func next() async throws -> Element? { try await base.next() }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: self) }
}

/// Waits, without sleeping, until `recorder` holds `count` runs.
final class CountWaiter: @unchecked Sendable {
  // @unchecked Sendable: every mutable property is only touched inside `lock.withLock`.
  private let lock = Lock()
  private var count = 0
  private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

  func increment() {
    let ready = lock.withLock {
      count += 1
      let ready = waiters.filter { $0.count <= count }.map(\.continuation)
      waiters.removeAll { $0.count <= count }
      return ready
    }
    for waiter in ready { waiter.resume() }
  }

  func wait(until target: Int) async {
    await withCheckedContinuation { continuation in
      let ready = lock.withLock {
        if count >= target { return true }
        waiters.append((target, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }
}
