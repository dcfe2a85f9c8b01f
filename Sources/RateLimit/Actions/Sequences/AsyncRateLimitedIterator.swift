/// The iterator of ``AsyncDebouncedSequence`` and ``AsyncThrottledSequence``: one iteration, with its own rule
/// state and its own iterator of the base. Not `Sendable`: one consumer iterates it.
public struct AsyncRateLimitedIterator<Base: AsyncSequence & Sendable>: AsyncIteratorProtocol
where Base.Element: Sendable {
  /// The base's elements.
  public typealias Element = Base.Element
  /// The base's error: `Never` for a base that never throws, so iterating needs no `try`.
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  public typealias Failure = Base.Failure

  @usableFromInline let iteration: SequenceIteration<Base>

  @usableFromInline
  init(iteration: SequenceIteration<Base>) {
    self.iteration = iteration
  }

  /// The next value the rule lets through, `nil` at the end (or once the consuming task is cancelled); throws
  /// what the base threw, after the value the rule still held.
  public mutating func next() async rethrows -> Element? {
    try await iteration.next().rethrowingGet()
  }

  /// ``next()`` with typed throws: a base that never throws gives an iterator that never throws.
  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  public mutating func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Element? {
    switch await iteration.next() {
    case .success(let element): return element
    // The reader only ever stores what the base's iterator threw, which is a `Failure`.
    case .failure(let error): throw error as! Failure
    }
  }
}

@available(*, unavailable)
extension AsyncRateLimitedIterator: Sendable {}

/// How a `rethrows` method throws an error it stored (the base's, thrown by a task that read it): a
/// `@rethrows` protocol's requirement may be called from a `rethrows` method, which then throws only where the
/// conformance it depends on (the base's) throws. The standard library's own sequences rely on the same rule.
@rethrows
protocol RethrowingResult {
  associatedtype Success
  func get() throws -> Success
}

extension RethrowingResult {
  /// `get()`, rethrowing.
  func rethrowingGet() rethrows -> Success { try get() }
}

extension Result: RethrowingResult {}
