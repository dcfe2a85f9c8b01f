#if Postgres
  import NIOCore
  import RateLimit

  extension PostgresRateLimiter {
    /// A booking: `permits` for `key`, granted at `time`. Cancel it if you will not use it.
    public struct Reservation: Sendable {
      /// How many permits are booked.
      public let permits: Int
      /// The key they are booked for.
      public let key: String
      /// The instant the permits are granted, on the limiter's ``Time`` clock (with ``Time/database``,
      /// nanoseconds since the Unix epoch on the database server's clock).
      public let time: Duration
      /// ``time`` minus the instant of the decision: how long to wait before acting.
      public let delay: Duration
      let canceller: Canceller

      /// Who gives the booking back.
      enum Canceller: Sendable {
        /// Booked in the database, under this id, for the key's bytes.
        case database(PostgresRateLimiter, id: Int64, key: ByteBuffer)
        /// Booked by the fallback limiter.
        case local(RateLimiter.Reservation)
        /// Granted without booking (no limiting, or `.allow` while the database was unavailable).
        case none
      }

      init(permits: Int, key: String, time: Duration, delay: Duration, canceller: Canceller) {
        (self.permits, self.key, self.time, self.delay, self.canceller) = (permits, key, time, delay, canceller)
      }

      /// A grant at `now` that nothing stores.
      init(permits: Int, key: String, at now: Duration) {
        self.init(permits: permits, key: key, time: now, delay: .zero, canceller: .none)
      }

      /// The fallback limiter's booking.
      init(_ local: RateLimiter.Reservation, key: String) {
        self.init(permits: local.permits, key: key, time: local.time, delay: local.delay, canceller: .local(local))
      }

      /// Gives the booking back, at or before its ``time``.
      ///
      /// | rule | at or before `time` | after `time`, or a second time |
      /// |---|---|---|
      /// | sliding window | the booking leaves the log; later bookings keep their instants | nothing |
      /// | token bucket | the permits come back if no later booking of the key was made since (the bucket is then as if this one had never been made); otherwise nothing comes back | nothing |
      ///
      /// (An in-process `RateLimiter` gives a bucket's permits back as Go does, less those later bookings
      /// counted on; here only the latest booking can be undone exactly, in one statement.) It works from a
      /// cancelled task too.
      ///
      /// - Throws: Only ``PostgresRateLimiterError/unavailable(underlying:)``, whatever the policy.
      public func cancel() async throws {
        switch canceller {
        case .database(let limiter, let id, let bytes): try await limiter.store.cancel(id, key: bytes)
        case .local(let reservation): reservation.cancel()
        case .none: break
        }
      }
    }
  }
#endif
