@testable import RateLimit

/// A weak reference that a `@Sendable` closure can capture before the object exists, and that is set later:
/// how an action calls back into the limiter that runs it, or reaches the owner that holds that limiter.
final class WeakBox<Object: AnyObject>: @unchecked Sendable {
  // @unchecked Sendable: `stored` is only read and written inside `lock.withLock`.
  private let lock = Lock()
  private weak var stored: Object?

  var object: Object? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}
