/// Scenarios of the strict sliding window (SPEC "RateLimiter: the rules"): N per T, key "a" unless named.
extension StoreScenario {
  static let window: [StoreScenario] = [
    StoreScenario(
      "a window grants N, then refuses until the first booking leaves it", .window(limit: 3, per: .seconds(10)),
      [
        .tryAcquire(1, true), .tryAcquire(2, true), .tryAcquire(1, false), .retryAfter(1, .seconds(10)),
        .advance(.seconds(4)), .tryAcquire(1, false), .retryAfter(1, .seconds(6)), .retryAfter(3, .seconds(6)),
        .advance(.seconds(6)), .tryAcquire(3, true), .count(1),
      ]),
    StoreScenario(
      "the window slides booking by booking", .window(limit: 2, per: .seconds(10)),
      [
        .tryAcquire(1, true), .advance(.seconds(3)), .tryAcquire(1, true), .advance(.seconds(2)),
        .tryAcquire(1, false), .retryAfter(1, .seconds(5)), .retryAfter(2, .seconds(8)), .advance(.seconds(5)),
        .tryAcquire(1, true), .tryAcquire(1, false), .retryAfter(1, .seconds(3)), .advance(.seconds(3)),
        .tryAcquire(1, true),
      ]),
    StoreScenario(
      "more than N is never granted and books nothing", .window(limit: 2, per: .seconds(10)),
      [
        .tryAcquire(3, false), .retryAfter(3, nil), .reserve(3, nil),
        .decide(3, .refused(remaining: 2, resetAfter: .zero, retryAfter: nil)), .count(0), .tryAcquire(2, true),
      ]),
    StoreScenario(
      "a booking waits its turn, and tryAcquire does not overtake it", .window(limit: 1, per: .seconds(10)),
      [
        .reserve(1, Booked(at: .zero, delay: .zero)), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .advance(.seconds(4)), .tryAcquire(1, false), .retryAfter(1, .seconds(16)),
        .reserve(1, within: .seconds(15), nil),
        .reserve(1, within: .seconds(16), Booked(at: .seconds(20), delay: .seconds(16))),
        .retryAfter(1, .seconds(26)), .count(1),
      ]),
    StoreScenario(
      "cancel gives a booking back; after its time, or twice, it does nothing", .window(limit: 1, per: .seconds(10)),
      [
        .reserve(1, Booked(at: .zero, delay: .zero)), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .cancel(booking: 1), .retryAfter(1, .seconds(10)),
        .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))), .advance(.seconds(1)), .cancel(booking: 0),
        .retryAfter(1, .seconds(19)), .cancel(booking: 1), .retryAfter(1, .seconds(19)),
      ]),
    StoreScenario(
      "decide reports what is left and when the key is at rest", .window(limit: 3, per: .seconds(10)),
      [
        .decide(1, .granted(remaining: 2, resetAfter: .seconds(10))), .advance(.seconds(4)),
        .decide(2, .granted(remaining: 0, resetAfter: .seconds(10))),
        .decide(1, .refused(remaining: 0, resetAfter: .seconds(10), retryAfter: .seconds(6))),
        .advance(.seconds(6)), .decide(1, .granted(remaining: 0, resetAfter: .seconds(10))),
      ]),
    StoreScenario(
      "a window's step back counts as no time passing", .window(limit: 1, per: .seconds(10)),
      [
        .tryAcquire(1, true), .advance(.seconds(5)), .tryAcquire(1, false), .advance(.seconds(-100)),
        .tryAcquire(1, false), .retryAfter(1, .seconds(5)), .advance(.seconds(5)), .tryAcquire(1, true),
      ]),
    StoreScenario(
      "keys never affect each other, and count follows the active ones", .window(limit: 1, per: .seconds(10)),
      [
        .tryAcquire(1, key: "a", true), .tryAcquire(1, key: "b", true), .tryAcquire(1, key: "a", false),
        .count(2), .advance(.seconds(5)), .tryAcquire(1, key: "c", true), .count(3), .advance(.seconds(5)),
        .count(1), .advance(.seconds(5)), .count(0),
      ]),
    StoreScenario(
      "a zero window does not limit, up to the capacity", .window(limit: 2, per: .zero),
      [
        .tryAcquire(2, true), .tryAcquire(2, true), .tryAcquire(3, false), .retryAfter(2, .zero),
        .retryAfter(3, nil), .reserve(2, Booked(at: .zero, delay: .zero)),
        .decide(2, .granted(remaining: 2, resetAfter: .zero)),
        .decide(3, .refused(remaining: 2, resetAfter: .zero, retryAfter: nil)), .count(0),
      ]),
    StoreScenario(
      "a limit of Int.max saturates", .window(limit: .max, per: .seconds(10)),
      [
        .tryAcquire(.max, true), .tryAcquire(1, false), .retryAfter(1, .seconds(10)), .advance(.seconds(10)),
        .tryAcquire(.max, true), .decide(1, .refused(remaining: 0, resetAfter: .seconds(10), retryAfter: .seconds(10))),
      ]),
    StoreScenario(
      "a booking ahead: nothing remains, and a step back moves it with the clock", .window(limit: 2, per: .seconds(10)),
      [
        .tryAcquire(2, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .decide(1, .refused(remaining: 0, resetAfter: .seconds(20), retryAfter: .seconds(10))),
        .advance(.seconds(2)), .retryAfter(2, .seconds(18)), .advance(.seconds(-50)), .retryAfter(1, .seconds(8)),
        .reserve(1, Booked(at: .seconds(-40), delay: .seconds(8))), .tryAcquire(1, false), .advance(.seconds(8)),
        .tryAcquire(1, false), .retryAfter(1, .seconds(10)), .count(1),
      ]),
    StoreScenario(
      "within .zero is tryAcquire; a bound of any size books", .window(limit: 1, per: .seconds(10)),
      [
        .reserve(1, within: .zero, Booked(at: .zero, delay: .zero)), .reserve(1, within: .zero, nil),
        .tryAcquire(1, false),
        .reserve(1, within: .seconds(Int64.max), Booked(at: .seconds(10), delay: .seconds(10))),
        .reserve(2, within: .seconds(Int64.max), nil),
      ]),
    StoreScenario(
      "a window beyond the 292-year horizon books there", .window(limit: 1, per: .seconds(Int64.max)),
      [
        .tryAcquire(1, true), .tryAcquire(1, false), .retryAfter(1, .nanoseconds(Int64.max)),
        .decide(
          1, .refused(remaining: 0, resetAfter: .nanoseconds(Int64.max), retryAfter: .nanoseconds(Int64.max))),
        .advance(.seconds(1_000_000)), .tryAcquire(1, false),
      ]),
  ]
}
