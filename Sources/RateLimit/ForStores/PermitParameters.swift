/// A permit rule's parameters: N per T, and B for a token bucket. What a limiter was made with, until an
/// `update` (SPEC 4.2) changes them.
package struct PermitParameters: Sendable, Hashable {
  /// N: the permits per ``window`` (sliding window), or the refill rate per ``window`` (token bucket).
  package let limit: Int
  /// T. `.zero`: no limiting.
  package let window: Duration
  /// B, the bucket's size; `nil` for a strict sliding window.
  package let burst: Int?
  /// The time in which `capacity` permits are allocated: T for a sliding window, B × T / N for a token bucket
  /// (the time to refill B; rounded up to the nanosecond); `.zero` with no limiting. Computed once.
  package let quotaWindow: Duration

  package init(limit: Int, window: Duration, burst: Int?) {
    (self.limit, self.window, self.burst) = (limit, window, burst)
    if let burst, window > .zero {
      let nanoseconds = wholeNanoseconds(window, roundingUp: true)
      quotaWindow = .nanoseconds(Wide.product(Int64(burst), nanoseconds).dividedRoundingUp(by: Int64(limit)))
    } else {
      quotaWindow = window
    }
  }

  /// The most permits one request can take: `burst`, or `limit` for a sliding window.
  package var capacity: Int { burst ?? limit }

  /// `window == .zero`: every request up to the capacity is granted at once, and nothing is kept.
  package var isUnlimited: Bool { window == .zero }

  /// The rule, as a trap names it: "a sliding window of 5 per 60 seconds", "a token bucket of 10 per
  /// 1.0 seconds with burst 3".
  package var ruleName: String {
    guard let burst else { return "a sliding window of \(limit) per \(window)" }
    return "a token bucket of \(limit) per \(window) with burst \(burst)"
  }
}

/// The parameters of one limiter, read by every decision and changed by `update`: behind a lock of their own,
/// so a decision reports one consistent set.
final class ParameterCell: Sendable {
  private let lock = Lock()
  // nonisolated(unsafe) is safe: `stored` is read and written only inside `lock.withLock`, so no two threads
  // touch it at once, and the lock orders every write before the reads after it.
  nonisolated(unsafe) private var stored: PermitParameters

  init(_ parameters: PermitParameters) { stored = parameters }

  var value: PermitParameters {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}
