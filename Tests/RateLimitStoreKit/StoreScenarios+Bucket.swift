/// Scenarios of the token bucket (SPEC "RateLimiter: the rules"): N per T, burst B, key "a".
extension StoreScenario {
  static let bucket: [StoreScenario] = [
    StoreScenario(
      "a bucket starts full, then refills at N per T", .bucket(limit: 2, per: .seconds(10), burst: 3),
      [
        .tryAcquire(3, true), .tryAcquire(1, false), .retryAfter(1, .seconds(5)), .advance(.seconds(5)),
        .tryAcquire(1, true), .tryAcquire(1, false), .retryAfter(2, .seconds(10)), .advance(.milliseconds(2_500)),
        .retryAfter(1, .milliseconds(2_500)), .advance(.seconds(20)), .tryAcquire(3, true), .tryAcquire(4, false),
        .retryAfter(4, nil),
      ]),
    StoreScenario(
      "instants between nanoseconds round up, without drift", .bucket(limit: 3, per: .seconds(1), burst: 1),
      [
        .tryAcquire(1, true), .retryAfter(1, .nanoseconds(333_333_334)),
        .reserve(1, Booked(at: .nanoseconds(333_333_334), delay: .nanoseconds(333_333_334))),
        .reserve(1, Booked(at: .nanoseconds(666_666_667), delay: .nanoseconds(666_666_667))),
        .reserve(1, Booked(at: .seconds(1), delay: .seconds(1))), .advance(.seconds(1)), .tryAcquire(1, false),
        .retryAfter(1, .nanoseconds(333_333_334)),
      ]),
    StoreScenario(
      "a bucket books into debt, within maxDelay", .bucket(limit: 1, per: .seconds(10), burst: 2),
      [
        .reserve(2, Booked(at: .zero, delay: .zero)), .reserve(1, within: .seconds(9), nil),
        .reserve(1, within: .seconds(10), Booked(at: .seconds(10), delay: .seconds(10))), .tryAcquire(1, false),
        .advance(.seconds(10)), .tryAcquire(1, false), .retryAfter(1, .seconds(10)), .count(1),
      ]),
    StoreScenario(
      "a bucket's decide reports whole permits and when it is full", .bucket(limit: 2, per: .seconds(10), burst: 4),
      [
        .decide(3, .granted(remaining: 1, resetAfter: .seconds(15))),
        .decide(2, .refused(remaining: 1, resetAfter: .seconds(15), retryAfter: .seconds(5))),
        .advance(.seconds(5)), .decide(1, .granted(remaining: 1, resetAfter: .seconds(15))),
        .decide(5, .refused(remaining: 1, resetAfter: .seconds(15), retryAfter: nil)),
      ]),
    // Go's TestReserveJumpBack: the step is taken in by the next request that books; one that fails changes
    // nothing, so the 5 s after the step count only from the booking on.
    StoreScenario(
      "a bucket's step back counts as no time passing", .bucket(limit: 1, per: .seconds(10), burst: 2),
      [
        .tryAcquire(1, true), .advance(.seconds(5)), .tryAcquire(1, true), .advance(.seconds(-100)),
        .tryAcquire(1, false), .retryAfter(1, .seconds(5)), .advance(.seconds(5)), .tryAcquire(1, false),
        .retryAfter(1, .seconds(5)), .reserve(1, Booked(at: .seconds(-85), delay: .seconds(5))),
        .advance(.seconds(5)), .tryAcquire(1, false), .advance(.seconds(10)), .tryAcquire(1, true),
      ]),
    StoreScenario(
      "a bucket of Int.max saturates", .bucket(limit: .max, per: .seconds(1), burst: .max),
      [
        .tryAcquire(.max, true), .tryAcquire(1, false), .retryAfter(1, .nanoseconds(1)), .advance(.seconds(1)),
        .tryAcquire(.max, true), .reserve(.max, Booked(at: .seconds(2), delay: .seconds(1))),
      ]),
    StoreScenario(
      "a bucket's booking ahead: nothing remains until it is granted", .bucket(limit: 1, per: .seconds(10), burst: 1),
      [
        .tryAcquire(1, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .decide(1, .refused(remaining: 0, resetAfter: .seconds(20), retryAfter: .seconds(20))),
        .advance(.seconds(10)), .decide(1, .refused(remaining: 0, resetAfter: .seconds(10), retryAfter: .seconds(10))),
        .advance(.seconds(10)), .decide(1, .granted(remaining: 0, resetAfter: .seconds(10))), .count(1),
        .advance(.seconds(10)), .count(0),
      ]),
    StoreScenario(
      "cancelling a bucket's latest booking gives its permits back", .bucket(limit: 1, per: .seconds(10), burst: 1),
      [
        .tryAcquire(1, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))), .cancel(booking: 0),
        .retryAfter(1, .seconds(10)), .advance(.seconds(10)), .tryAcquire(1, true), .cancel(booking: 0),
        .tryAcquire(1, false),
      ]),
    StoreScenario(
      "a zero-window bucket grants up to B at once", .bucket(limit: 1, per: .zero, burst: 3),
      [
        .tryAcquire(3, true), .tryAcquire(3, true), .tryAcquire(4, false), .retryAfter(3, .zero),
        .decide(3, .granted(remaining: 3, resetAfter: .zero)),
        .decide(4, .refused(remaining: 3, resetAfter: .zero, retryAfter: nil)), .count(0),
      ]),
    StoreScenario(
      "a debt beyond the 292-year horizon books there", .bucket(limit: 1, per: .seconds(1_000_000_000), burst: .max),
      [
        .tryAcquire(.max, true), .retryAfter(1, .seconds(1_000_000_000)),
        .reserve(.max, Booked(at: .nanoseconds(Int64.max), delay: .nanoseconds(Int64.max))), .tryAcquire(1, false),
        .retryAfter(1, .nanoseconds(Int64.max)), .count(1),
      ]),
  ]

  /// Every scenario: each store's suite runs them all.
  public static let all = window + bucket + acquire + operations
}
