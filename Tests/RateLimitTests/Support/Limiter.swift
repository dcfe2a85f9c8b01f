import RateLimit

/// The common surface of ``Throttler`` and ``Debouncer``, so one test can drive either.
protocol Limiting<Value>: Sendable {
  associatedtype Value: Sendable
  func call(_ value: Value)
  func flush()
  func cancel()
  func invalidate()
  var isPending: Bool { get }
}

extension Throttler: Limiting {}
extension Debouncer: Limiting {}
