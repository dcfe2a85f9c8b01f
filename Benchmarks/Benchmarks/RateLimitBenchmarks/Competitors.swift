import AsyncAlgorithms
import Dispatch
import OpenCombine
import OpenCombineDispatch

/// OpenCombine's `debounce` or `throttle(latest: true)` on a `DispatchQueue` scheduler: a call is a `send`.
final class CombineLimiter: CallSink, @unchecked Sendable {
  // @unchecked Sendable: OpenCombine's `PassthroughSubject.send` and its operators lock internally; the
  // subscription is only kept alive here, never touched.
  private let subject = PassthroughSubject<Int, Never>()
  private var subscription: AnyCancellable?

  enum Operator { case debounce, throttleLatest }

  init(_ kind: Operator, interval: Duration, queue: DispatchQueue, action: @escaping @Sendable (Int) -> Void) {
    let stride = DispatchQueue.OCombine.SchedulerTimeType.Stride.seconds(Int(interval.components.seconds))
    switch kind {
    case .debounce:
      subscription = subject.debounce(for: stride, scheduler: queue.ocombine).sink(receiveValue: action)
    case .throttleLatest:
      subscription = subject.throttle(for: stride, scheduler: queue.ocombine, latest: true).sink(receiveValue: action)
    }
  }

  func call(_ value: Int) {
    subject.send(value)
  }
}

/// swift-async-algorithms' `debounce(for:)` fed by an `AsyncStream`: a call is a `yield`. The debounce itself runs
/// in a task on another thread (the async hop): its CPU time shows in `cpuTotal`, not in `wallClock`.
final class AsyncDebounce: CallSink, Sendable {
  private let continuation: AsyncStream<Int>.Continuation
  private let consumer: Task<Void, Never>

  init(interval: Duration, action: @escaping @Sendable (Int) -> Void) {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    self.continuation = continuation
    consumer = Task {
      for await value in stream.debounce(for: interval) { action(value) }
    }
  }

  deinit {
    continuation.finish()
    consumer.cancel()
  }

  func call(_ value: Int) {
    continuation.yield(value)
  }
}
