/// Where a limiter's permits are kept, as its ``PermitFrontDoor`` sees them: in this process (``RateLimiter``'s
/// ``PermitCore``, ``KeyedRateLimiter``'s ``KeyedPermitStore``) or in PostgreSQL (`PostgresRateLimiter`).
///
/// A store books and waits; the front door does the rest of `acquire` (the checks, the cancellation before
/// booking, the errors) the same way for all of them. Every store is held to the same answers by the store kit
/// (`Tests/RateLimitStoreKit`).
package protocol PermitStore: Sendable {
  /// What the store tells keys apart by (`Void` for a limiter of one key).
  associatedtype Key: Sendable
  /// A booking for a later instant, as the store waits for it.
  associatedtype Booked: Sendable

  /// Books `permits` for `key` at the earliest instant, if within `maxDelay` (`nil`: no bound); the request's
  /// parameters are checked already.
  func book(_ permits: Int, for key: Key, within maxDelay: Duration?) async throws -> PermitAnswer<Booked>

  /// Waits until the booking's instant. If the task is cancelled first, gives the booking back and throws
  /// `CancellationError` at once.
  func wait(for booked: Booked) async throws

  /// The error `acquire` throws for more than the capacity.
  func exceedsCapacity(requested: Int, capacity: Int) -> any Error

  /// The error `acquire` throws for a booking beyond `maxDelay`.
  func exceedsMaxDelay(delay: Duration, maxDelay: Duration) -> any Error
}

/// What a store answers a request to book.
package enum PermitAnswer<Booked: Sendable>: Sendable {
  /// Granted now: nothing to wait for.
  case granted
  /// Booked for a later instant.
  case booked(Booked)
  /// More than the capacity: nothing booked.
  case exceedsCapacity(capacity: Int)
  /// The earliest instant is beyond `maxDelay`, by `delay` from now: nothing booked.
  case exceedsMaxDelay(delay: Duration)
}

extension PermitStore {
  /// ``RateLimiterError/exceedsCapacity(requested:capacity:)``.
  package func exceedsCapacity(requested: Int, capacity: Int) -> any Error {
    RateLimiterError.exceedsCapacity(requested: requested, capacity: capacity)
  }

  /// ``RateLimiterError/exceedsMaxDelay(delay:maxDelay:)``.
  package func exceedsMaxDelay(delay: Duration, maxDelay: Duration) -> any Error {
    RateLimiterError.exceedsMaxDelay(delay: delay, maxDelay: maxDelay)
  }
}
