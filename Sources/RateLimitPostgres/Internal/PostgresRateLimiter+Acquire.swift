#if Postgres
  import RateLimit

  extension PostgresRateLimiter {
    /// `acquire` through the core's front door (``PermitFrontDoor``): its checks, cancellation and errors are the
    /// core's, as for `KeyedRateLimiter`; this says how a booking is made (the limiter's `reserve` path: one round
    /// trip, or the policy when the database cannot answer) and how this process waits for it (the store's
    /// waiters, moved back when `c` steps back).
    struct AcquireStore: PermitStore {
      let limiter: PostgresRateLimiter

      /// A booking in the database for a later instant, as this process waits for it.
      struct Booked: Sendable {
        let reservation: Reservation
        /// When to resume, on the limiter's local clock.
        let instant: Duration
        /// With `.clock(c)`: the waiters' total shift when it was booked, so that the waiter moves back with `c`.
        /// `nil` with `.database`, whose waiter waits for the booking's delay from now on a `ContinuousClock`.
        let shift: Int64?
      }

      func book(_ permits: Int, for key: String, within maxDelay: Duration?) async throws -> PermitAnswer<Booked> {
        switch try await limiter.request(permits, for: key, within: maxDelay) {
        case .booked(let reservation):
          if reservation.delay <= .zero { return .granted }
          // No suspension since the booking: the waiters' shift is still the one it was made at.
          guard limiter.time.clock != nil else {
            return .booked(
              Booked(reservation: reservation, instant: limiter.store.localClock.now + reservation.delay, shift: nil))
          }
          return .booked(
            Booked(reservation: reservation, instant: reservation.time, shift: limiter.store.waiters.currentShift))
        case .exceedsCapacity: return .exceedsCapacity(capacity: limiter.capacity)
        case .exceedsMaxDelay(let delay): return .exceedsMaxDelay(delay: delay)
        case .denied(let error): throw error
        case .fallback(let local):
          // The fallback limiter books and waits on its own clock, through its own front door; its refusals
          // come back as this limiter's errors.
          do {
            try await local.acquire(permits, for: key, within: maxDelay)
            return .granted
          } catch RateLimiterError.exceedsCapacity(_, let capacity) {
            return .exceedsCapacity(capacity: capacity)
          } catch RateLimiterError.exceedsMaxDelay(let delay, _) {
            return .exceedsMaxDelay(delay: delay)
          }
        }
      }

      /// Waits on the local clock (moved back with `c` when it steps back); cancelled first, gives the booking
      /// back in the database (as ``Reservation/cancel()``) before it throws.
      func wait(for booked: Booked) async throws {
        do {
          if let shift = booked.shift {
            try await waitUntilInstant(
              booked.instant, on: limiter.store.localClock, timeline: limiter.store.waiters, shift: shift)
          } else {
            try await waitUntilInstant(booked.instant, on: limiter.store.localClock)
          }
        } catch {
          try? await booked.reservation.cancel()
          throw error
        }
      }

      func exceedsCapacity(requested: Int, capacity: Int) -> any Error {
        PostgresRateLimiterError.exceedsCapacity(requested: requested, capacity: capacity)
      }

      func exceedsMaxDelay(delay: Duration, maxDelay: Duration) -> any Error {
        PostgresRateLimiterError.exceedsMaxDelay(delay: delay, maxDelay: maxDelay)
      }
    }
  }
#endif
