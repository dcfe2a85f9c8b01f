/// Scenarios of `acquire` (SPEC "RateLimiter: the rules", `acquire`): the front door every store shares
/// (`PermitFrontDoor` in the core), over each store's booking and waiting. Key "a".
extension StoreScenario {
  static let acquire: [StoreScenario] = [
    StoreScenario(
      "acquire returns at once for a grant now, and throws at once what it cannot wait for",
      .window(limit: 2, per: .seconds(10)),
      [
        .acquire(1, .returned), .acquire(1, .returned), .acquire(3, .exceedsCapacity(requested: 3, capacity: 2)),
        .acquire(1, within: .seconds(5), .exceedsMaxDelay(delay: .seconds(10), maxDelay: .seconds(5))),
        .acquire(1, within: .zero, .exceedsMaxDelay(delay: .seconds(10), maxDelay: .zero)),
        .retryAfter(1, .seconds(10)), .count(1), .advance(.seconds(10)), .acquire(2, within: .zero, .returned),
        .retryAfter(1, .seconds(10)),
      ]),
    StoreScenario(
      "a window's acquire cancelled while it waits gives its booking back before it throws",
      .window(limit: 1, per: .seconds(10)),
      [
        .acquire(1, .returned), .acquireCancelledWhileWaiting(1), .retryAfter(1, .seconds(10)),
        .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))), .acquireOnACancelledTask(1),
        .retryAfter(1, .seconds(20)), .acquireCancelledWhileWaiting(1), .retryAfter(1, .seconds(20)),
      ]),
    StoreScenario(
      "a bucket's acquire on a cancelled task books nothing, and one cancelled while it waits gives it back",
      .bucket(limit: 1, per: .seconds(10), burst: 2),
      [
        .acquire(2, .returned), .acquireOnACancelledTask(1), .retryAfter(1, .seconds(10)),
        .acquireCancelledWhileWaiting(1), .retryAfter(1, .seconds(10)),
        .acquire(3, .exceedsCapacity(requested: 3, capacity: 2)),
        .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))), .advance(.seconds(20)),
        .acquire(1, within: .zero, .returned), .retryAfter(1, .seconds(10)),
      ]),
  ]
}
