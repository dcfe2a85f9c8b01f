/// What ``RateLimiter``'s and ``KeyedRateLimiter``'s stores share behind the front door: they book at once under
/// their lock, and a waiter waits on their clock, moved back with it when it steps back (``WaiterTimeline``).
protocol InProcessPermitStore: PermitStore where Booked == InProcessBooking {
  var clock: PermitClock { get }
  var waiters: WaiterTimeline { get }
  /// Books under the store's lock, with the clock read once.
  func reserve(_ permits: Int, for key: Key, within maxDelay: Duration?) -> BookingOutcome
  /// What gives a booking of `key` back.
  func canceller(for key: Key) -> any BookingCanceller
}

/// A booking of an in-process store for a later instant, as `acquire` waits for it.
struct InProcessBooking: Sendable {
  let booking: Booking
  /// The store's total backward shift when it was booked (``WaiterTimeline``).
  let shift: Int64
  let canceller: any BookingCanceller
}

extension InProcessPermitStore {
  func book(_ permits: Int, for key: Key, within maxDelay: Duration?) -> PermitAnswer<InProcessBooking> {
    switch reserve(permits, for: key, within: maxDelay) {
    case .exceedsCapacity(let capacity): return .exceedsCapacity(capacity: capacity)
    case .exceedsMaxDelay(let delay): return .exceedsMaxDelay(delay: .nanoseconds(delay))
    case .booked(let booking, let now, let shift):
      // A booking for now returns without waiting for the clock.
      if booking.time <= now { return .granted }
      return .booked(InProcessBooking(booking: booking, shift: shift, canceller: canceller(for: key)))
    }
  }

  func wait(for booked: InProcessBooking) async throws {
    try await waitForInstant(booked.booking.time, on: clock, timeline: (waiters, booked.shift)) {
      booked.canceller.cancel(booked.booking)
    }
  }
}
