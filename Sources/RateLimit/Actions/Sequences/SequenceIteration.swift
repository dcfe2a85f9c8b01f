public import Dispatch

/// One iteration of a debounced or throttled sequence: a task that reads the base and calls a closure object
/// (``Debouncer`` or ``Throttler``, the same engines) with each element, and a mailbox where the closure
/// object's action leaves its runs for the consumer.
///
/// ```
/// base --> reader --call--> Debouncer --action--> mailbox --> next()
/// ```
///
/// - The reader starts at the first `next()` and asks for element k + 1 only once element k's call is made.
/// - A run due while the consumer waits resumes it at once, at the run's instant; otherwise it waits in the
///   mailbox, where a later run replaces it (or, with `reducing`, joins it in order): memory O(1).
/// - The base's end: what the rule holds, and every run decided and not yet delivered, are taken from the engine
///   at once (``Engine/takeRemainingRuns()``), joined to the mailbox, then the end (or the error) follows them.
/// - Cancellation of the consumer, or the iterator going away: the reader is cancelled, the closure object
///   invalidated (a timer it left does nothing), and `next()` answers `nil`.
///
/// Every run reaches the mailbox on one serial queue (a ``DispatchClock``'s timers fire there; a ``ManualClock``
/// runs them on the thread that advances it), and the base's end is handed to that queue too, so that it comes
/// after a run already on its way.
@usableFromInline
final class SequenceIteration<Base: AsyncSequence & Sendable>: @unchecked Sendable where Base.Element: Sendable {
  // @unchecked Sendable: `state`, the one mutable property, is only read and written inside `lock.withLock`, and
  // no user code (the reducer aside, which the closure objects also run under their lock) runs while it is held;
  // everything else is immutable and Sendable.
  @usableFromInline typealias Element = Base.Element
  /// What `next()` answers: an element, the end (`nil`), or the base's error.
  typealias Answer = Result<Element?, any Error>

  private struct State: ~Copyable {
    var limiter: (any SequenceLimiter<Element>)?
    var reader: Task<Void, Never>?
    /// The value due and not yet taken by the consumer.
    var waiting: Element?
    /// The consumer in `next()`, waiting.
    var consumer: UnsafeContinuation<Answer, Never>?
    /// The base ended (`nil` error) or threw; answered once `waiting` is taken.
    var end: (any Error)??
    /// The consumer's task was cancelled, or the iterator went away: `nil` from now on.
    var isCancelled = false
  }

  private let lock = Lock()
  private var state = State()
  private let base: Base
  private let reducing: Reducer<Element>?
  /// Where runs reach the mailbox, and the base's end after them.
  private let queue = DispatchQueue(label: "RateLimit.sequence")

  /// Whether the reader waits for the runs it decided every ``callsBetweenWaits`` calls.
  private let waitsForRuns: Bool

  @usableFromInline
  init(
    base: Base, reducing: Reducer<Element>?, clock: any RateLimitClock,
    makeLimiter: (DispatchQueue, @escaping @Sendable (Element) -> Void) -> any SequenceLimiter<Element>
  ) {
    self.base = base
    self.reducing = reducing
    self.waitsForRuns = clock is DispatchClock
    let limiter = makeLimiter(queue) { [weak self] value in self?.deliver(value) }
    lock.withLock { state.limiter = limiter }
  }

  deinit {
    cancel()
  }

  /// The next value, the end, or the base's error; `nil` once the consumer's task is cancelled.
  func next() async -> Answer {
    await withTaskCancellationHandler {
      await withUnsafeContinuation { (continuation: UnsafeContinuation<Answer, Never>) in
        let (answer, reader) = lock.withLock { () -> (Answer?, Task<Void, Never>?) in
          if state.isCancelled { return (.success(nil), nil) }
          if let value = state.waiting.take() { return (.success(value), nil) }
          if let end = state.end {
            // The error is thrown once; after it, the end.
            state.end = .some(nil)
            return (end.map { .failure($0) } ?? .success(nil), nil)
          }
          state.consumer = continuation
          guard state.reader == nil, let limiter = state.limiter else { return (nil, nil) }
          // The reader holds the iteration weakly: the iterator going away ends it.
          let ended: @Sendable ((any Error)?) -> Void = { [weak self] in self?.baseEnded($0) }
          let reader = Task { [base, waitsForRuns] in
            await Self.read(base, into: limiter, waitsForRuns: waitsForRuns, then: ended)
          }
          state.reader = reader
          return (nil, reader)
        }
        _ = reader
        if let answer { continuation.resume(returning: answer) }
      }
    } onCancel: {
      cancel()
    }
  }

  /// How many calls the reader makes before it waits for the runs they decided to reach the mailbox: a base
  /// faster than the runs' queue (every element a run, with a zero interval) would otherwise pile up deliveries,
  /// one block each (a million elements: 130 MB). Only on ``DispatchClock``, the real clock: on any other (a
  /// ``ManualClock``, a test clock behind ``SwiftClock``) runs may wait for a test to advance it.
  static var callsBetweenWaits: Int { 64 }

  /// The reader: each element is a call, made before the next element is asked for.
  private static func read(
    _ base: Base, into limiter: any SequenceLimiter<Element>, waitsForRuns: Bool,
    then ended: @Sendable ((any Error)?) -> Void
  ) async {
    var iterator = base.makeAsyncIterator()
    var calls = 0
    do {
      while let element = try await iterator.next() {
        if Task.isCancelled { return }
        limiter.call(element)
        calls &+= 1
        if waitsForRuns, calls % callsBetweenWaits == 0 { await limiter.waitUntilIdle() }
      }
      ended(nil)
    } catch {
      if Task.isCancelled { return }
      ended(error)
    }
  }

  /// A run of the closure object: to the consumer waiting, else into the mailbox.
  private func deliver(_ value: Element) {
    let consumer = lock.withLock { () -> UnsafeContinuation<Answer, Never>? in
      if state.isCancelled || state.end != nil { return nil }
      if let consumer = state.consumer.take() { return consumer }
      join(value, into: &state.waiting)
      return nil
    }
    consumer?.resume(returning: .success(value))
  }

  /// A later due value joins the one waiting: replaces it, or with `reducing` is combined into it.
  private func join(_ value: Element, into waiting: inout Element?) {
    guard var held = waiting.take() else {
      waiting = value
      return
    }
    if let reducing { reducing(&held, value) } else { held = value }
    waiting = held
  }

  /// The base finished (`error == nil`) or threw: on the runs' queue, after any run on its way, what the rule
  /// still holds is taken at once, then the end follows it.
  private func baseEnded(_ error: (any Error)?) {
    queue.async { [self] in
      let (answer, consumer): (Answer?, UnsafeContinuation<Answer, Never>?) = lock.withLock {
        guard !state.isCancelled, let limiter = state.limiter else { return (nil, nil) }
        for value in limiter.takeRemainingRuns() { join(value, into: &state.waiting) }
        state.limiter = nil
        state.reader = nil
        guard let consumer = state.consumer.take() else {
          state.end = .some(error)
          return (nil, nil)
        }
        if let value = state.waiting.take() {
          state.end = .some(error)
          return (.success(value), consumer)
        }
        state.end = .some(nil)
        return (error.map { .failure($0) } ?? .success(nil), consumer)
      }
      if let answer { consumer?.resume(returning: answer) }
    }
  }

  /// Ends the iteration: the reader stops, the closure object is invalidated, a waiting consumer gets `nil`.
  func cancel() {
    let (limiter, reader, consumer) = lock.withLock {
      state.isCancelled = true
      state.waiting = nil
      return (state.limiter.take(), state.reader.take(), state.consumer.take())
    }
    reader?.cancel()
    limiter?.invalidate()
    consumer?.resume(returning: .success(nil))
  }
}
