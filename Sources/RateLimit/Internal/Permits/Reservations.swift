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
    /// The task was cancelled first.
    case cancelled
  }

  private let lock = Lock()
  private var state = State.booked

  /// Resumed (granted) or cancelled: nothing left to do for it.
  var isDone: Bool {
    lock.withLock {
      switch state {
      case .granted, .cancelled: true
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
      case .granted, .cancelled:
        return nil
      }
    }
    continuation?.resume()
  }

  /// The task was cancelled: returns whether it was in time (the booking is then to be cancelled).
  func cancel() -> Bool {
    let (won, continuation): (Bool, CheckedContinuation<Void, any Error>?) = lock.withLock {
      switch state {
      case .booked:
        state = .cancelled
        return (true, nil)
      case .waiting(let continuation):
        state = .cancelled
        return (true, continuation)
      case .granted, .cancelled:
        return (false, nil)
      }
    }
    continuation?.resume(throwing: CancellationError())
    return won
  }

  /// Suspends until granted or cancelled.
  func wait() async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      let outcome: Result<Void, any Error>? = lock.withLock {
        switch state {
        case .booked:
          state = .waiting(continuation)
          return nil
        case .granted: return .success(())
        case .cancelled: return .failure(CancellationError())
        case .waiting: preconditionFailure("a waiter suspended twice")
        }
      }
      if let outcome { continuation.resume(with: outcome) }
    }
  }
}

/// `acquire`, after the request: throws the request's error, or waits for the booking's instant (cancelling the
/// booking if the task is cancelled first).
func awaitBooking(
  _ outcome: BookingOutcome, requested permits: Int, maxDelay: Duration?, clock: PermitClock,
  canceller: any BookingCanceller, timeline: WaiterTimeline? = nil
) async throws {
  let booking: Booking
  var bookedShift: Int64 = 0
  switch outcome {
  case .exceedsCapacity(let capacity):
    throw RateLimiterError.exceedsCapacity(requested: permits, capacity: capacity)
  case .exceedsMaxDelay(let delay):
    throw RateLimiterError.exceedsMaxDelay(delay: .nanoseconds(delay), maxDelay: maxDelay ?? .zero)
  case .booked(let booked, let now, let shift):
    // A booking for now returns without waiting for the clock.
    if booked.time <= now { return }
    booking = booked
    bookedShift = shift
  }
  try await waitForInstant(booking.time, on: clock, timeline: timeline.map { ($0, bookedShift) }) {
    canceller.cancel(booking)
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
    if waiter.cancel() { cancelledFirst() }
  }
}
