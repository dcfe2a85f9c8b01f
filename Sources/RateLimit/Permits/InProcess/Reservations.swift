/// Whatever keeps the booking a ``RateLimiter/Reservation`` cancels: a limiter, or one key of a keyed limiter.
protocol BookingCanceller: AnyObject, Sendable {
  func cancel(_ booking: Booking)
}

/// How a request ended, before it becomes a ``RateLimiter/Reservation`` or an error.
enum BookingOutcome: Sendable {
  /// `shift`: the limiter's total backward shift when it was booked (``WaiterTimeline``).
  case booked(Booking, now: Int64, shift: Int64 = 0)
  case exceedsCapacity(capacity: Int)
  case exceedsMaxDelay(delay: Int64)
}

extension RateLimiter.Reservation {
  init(_ booking: Booking, madeAt now: Int64, canceller: (any BookingCanceller)?) {
    self.init(
      permits: booking.permits, time: .nanoseconds(booking.time),
      delay: .nanoseconds(Nanoseconds.subtracting(booking.time, now)), booking: booking, canceller: canceller)
  }
}

/// One `acquire` waiting for its booking's instant: exactly one piece of work on the clock, which resumes it;
/// cancelling its task first cancels the booking instead. Whichever comes first wins, under the lock.
///
/// A cancellation that wins gives the booking back before the waiter throws: whoever awaits `acquire` finds the
/// booking gone once it has thrown (`cancelling` holds off the waiter meanwhile).
final class PermitWaiter: @unchecked Sendable {
  // @unchecked Sendable: `state` is only read and written inside `lock.withLock`; continuations are resumed
  // outside it.
  private enum State {
    /// Booked, not suspended yet.
    case booked
    /// Suspended.
    case waiting(CheckedContinuation<Void, any Error>)
    /// The clock reached the booking's instant.
    case granted
    /// The task was cancelled first, and the booking is being given back; the waiter, if suspended already.
    case cancelling(CheckedContinuation<Void, any Error>?)
    /// The task was cancelled first, and the booking is given back.
    case cancelled
  }

  private let lock = Lock()
  private var state = State.booked

  /// Resumed (granted) or cancelled: nothing left to do for it.
  var isDone: Bool {
    lock.withLock {
      switch state {
      case .granted, .cancelling, .cancelled: true
      case .booked, .waiting: false
      }
    }
  }

  /// The clock reached the instant: resumes the waiter (or lets it return at once when it suspends).
  func grant() {
    let continuation: CheckedContinuation<Void, any Error>? = lock.withLock {
      switch state {
      case .booked:
        state = .granted
        return nil
      case .waiting(let continuation):
        state = .granted
        return continuation
      case .granted, .cancelling, .cancelled:
        return nil
      }
    }
    continuation?.resume()
  }

  /// The task was cancelled: if it was in time, runs `givingBack` (the booking is given back), then lets the
  /// waiter throw `CancellationError`.
  func cancel(givingBack: () -> Void) {
    let won: Bool = lock.withLock {
      switch state {
      case .booked:
        state = .cancelling(nil)
        return true
      case .waiting(let continuation):
        state = .cancelling(continuation)
        return true
      case .granted, .cancelling, .cancelled:
        return false
      }
    }
    guard won else { return }
    givingBack()
    let continuation: CheckedContinuation<Void, any Error>? = lock.withLock {
      guard case .cancelling(let continuation) = state else { return nil }
      state = .cancelled
      return continuation
    }
    continuation?.resume(throwing: CancellationError())
  }

  /// Suspends until granted or cancelled.
  func wait() async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      let outcome: Result<Void, any Error>? = lock.withLock {
        switch state {
        case .booked:
          state = .waiting(continuation)
          return nil
        case .cancelling(nil):
          // The booking is being given back: `cancel` resumes it once it is.
          state = .cancelling(continuation)
          return nil
        case .granted: return .success(())
        case .cancelled: return .failure(CancellationError())
        case .waiting, .cancelling: preconditionFailure("a waiter suspended twice")
        }
      }
      if let outcome { continuation.resume(with: outcome) }
    }
  }
}

/// Waits until `clock` reaches `instant`, with exactly one piece of work scheduled on it, resumed on the waiters'
/// queue. If the calling task is cancelled first, runs `cancelledFirst` (once, in the cancellation handler) and
/// throws `CancellationError` at once.
func waitForInstant(
  _ instant: Int64, on clock: PermitClock, timeline: (WaiterTimeline, shift: Int64)? = nil,
  cancelledFirst: @escaping @Sendable () -> Void
) async throws {
  let waiter = PermitWaiter()
  timeline?.0.add(waiter, at: instant, shift: timeline?.shift ?? 0)
  clock.schedule(at: instant) { waiter.grant() }
  try await withTaskCancellationHandler {
    try await waiter.wait()
  } onCancel: {
    waiter.cancel(givingBack: cancelledFirst)
  }
}
