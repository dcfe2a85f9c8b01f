/// Scenarios of operating a key and a limit (SPEC 4.2, "Operating a key: the rules"), key "a" unless named, with
/// the answers the SPEC gives written out.
extension StoreScenario {
  static let operations: [StoreScenario] = [
    StoreScenario(
      "peek answers what decide would, and takes nothing", .window(limit: 5, per: .seconds(60)),
      [
        .peek(1, .granted(remaining: 4, resetAfter: .seconds(60))),
        .peek(1, .granted(remaining: 4, resetAfter: .seconds(60))), .count(0),
        .decide(1, .granted(remaining: 4, resetAfter: .seconds(60))), .tryAcquire(4, true),
        .peek(1, .refused(remaining: 0, resetAfter: .seconds(60), retryAfter: .seconds(60))),
        .peek(6, .refused(remaining: 0, resetAfter: .seconds(60), retryAfter: nil)),
      ]),
    StoreScenario(
      "a charge goes past the limit, and the window counts it until it leaves", .window(limit: 2, per: .seconds(10)),
      [
        .charge(3, .granted(remaining: 0, resetAfter: .seconds(10))), .tryAcquire(1, false),
        .retryAfter(1, .seconds(10)), .charge(0, .granted(remaining: 0, resetAfter: .seconds(10))),
        .advance(.seconds(10)), .tryAcquire(2, true),
      ]),
    StoreScenario(
      "a refund gives back the latest first, never more than taken", .window(limit: 3, per: .seconds(10)),
      [
        .tryAcquire(1, true), .advance(.seconds(2)), .tryAcquire(2, true),
        .refund(1, .granted(remaining: 1, resetAfter: .seconds(10))),
        .refund(5, .granted(remaining: 3, resetAfter: .zero)), .count(0),
        .refund(1, key: "never", .granted(remaining: 3, resetAfter: .zero)), .count(0),
      ]),
    StoreScenario(
      "reset forgets what was taken and keeps the bookings ahead", .window(limit: 1, per: .seconds(10)),
      [
        .reserve(1, Booked(at: .zero, delay: .zero)), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .reset(), .tryAcquire(1, false), .retryAfter(1, .seconds(20)), .advance(.seconds(10)),
        .tryAcquire(1, false), .advance(.seconds(10)), .tryAcquire(1, true),
      ]),
    StoreScenario(
      "a block refuses until its end, outlives the window, is extended, and reset lifts it",
      .window(limit: 2, per: .seconds(10)),
      [
        .block(for: .seconds(60)), .tryAcquire(1, false),
        .decide(1, .refused(remaining: 0, resetAfter: .seconds(60), retryAfter: .seconds(60))), .count(1),
        .advance(.seconds(30)), .block(for: .seconds(20)), .retryAfter(1, .seconds(30)),
        .block(for: .seconds(40)), .retryAfter(1, .seconds(40)), .count(1), .reset(), .tryAcquire(1, true),
        .block(for: .zero), .tryAcquire(1, true), .tryAcquire(1, false),
      ]),
    StoreScenario(
      "a block works on a zero window too: refused until its end, then no limit again",
      .window(limit: 2, per: .zero),
      [
        .tryAcquire(2, true), .block(for: .seconds(30)), .tryAcquire(1, false),
        .decide(1, .refused(remaining: 0, resetAfter: .seconds(30), retryAfter: .seconds(30))),
        .peek(1, .refused(remaining: 0, resetAfter: .seconds(30), retryAfter: .seconds(30))),
        .retryAfter(1, .seconds(30)), .count(1), .reserve(1, Booked(at: .seconds(30), delay: .seconds(30))),
        .advance(.seconds(30)), .tryAcquire(2, true), .tryAcquire(2, true), .count(0),
        .block(for: .seconds(10)), .tryAcquire(1, false), .reset(), .tryAcquire(1, true),
        .decide(1, .granted(remaining: 2, resetAfter: .zero)),
      ]),
    StoreScenario(
      "a booking made during a block is made at its end", .window(limit: 1, per: .seconds(10)),
      [
        .block(for: .seconds(30)), .reserve(1, Booked(at: .seconds(30), delay: .seconds(30))),
        .reserve(1, Booked(at: .seconds(40), delay: .seconds(40))),
      ]),
    StoreScenario(
      "a booking during a block is made at its end only within maxDelay of now (window)",
      .window(limit: 1, per: .seconds(10)),
      [
        .block(for: .seconds(30)), .reserve(1, within: .seconds(10), nil), .reserve(1, within: .zero, nil),
        .reserve(1, within: .seconds(30), Booked(at: .seconds(30), delay: .seconds(30))),
        .advance(.seconds(30)), .tryAcquire(1, false),
      ]),
    StoreScenario(
      "a booking during a block is made at its end only within maxDelay of now (bucket)",
      .bucket(limit: 1, per: .seconds(10), burst: 2),
      [
        .block(for: .seconds(30)), .reserve(1, within: .seconds(10), nil), .reserve(2, within: .zero, nil),
        .reserve(2, within: .seconds(30), Booked(at: .seconds(30), delay: .seconds(30))),
        .advance(.seconds(30)), .tryAcquire(1, false),
      ]),
    StoreScenario(
      "a booking made before a block, cancelled during it before its instant, gives its permits back (window)",
      .window(limit: 1, per: .seconds(10)),
      [
        .tryAcquire(1, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .block(for: .seconds(15)), .advance(.seconds(5)), .cancel(booking: 0), .retryAfter(1, .seconds(10)),
        .advance(.seconds(10)), .tryAcquire(1, true), .tryAcquire(1, false),
      ]),
    StoreScenario(
      "a booking made before a block, cancelled during it before its instant, gives its permits back (bucket)",
      .bucket(limit: 1, per: .seconds(10), burst: 1),
      [
        .tryAcquire(1, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .block(for: .seconds(15)), .advance(.seconds(5)), .cancel(booking: 0), .retryAfter(1, .seconds(10)),
        .advance(.seconds(10)), .tryAcquire(1, true), .tryAcquire(1, false),
      ]),
    StoreScenario(
      "a booking cancelled during a block gives back at now, not at the block's end (bucket)",
      .bucket(limit: 1, per: .seconds(10), burst: 2),
      [
        .reserve(2, Booked(at: .zero, delay: .zero)), .block(for: .seconds(30)), .cancel(booking: 0),
        .charge(2, .granted(remaining: 0, resetAfter: .seconds(30))), .advance(.seconds(30)), .tryAcquire(2, true),
      ]),
    StoreScenario(
      "a booking made during a block, cancelled, leaves the bucket at the block's end, as it found it (bucket)",
      .bucket(limit: 1, per: .seconds(10), burst: 2),
      [
        .block(for: .seconds(30)), .reserve(2, Booked(at: .seconds(30), delay: .seconds(30))),
        .advance(.seconds(10)), .cancel(booking: 0), .charge(2, .granted(remaining: 0, resetAfter: .seconds(40))),
        .advance(.seconds(20)), .retryAfter(2, .seconds(20)),
      ]),
    StoreScenario(
      "a booking made during a block forgets nothing still ahead now (window)", .window(limit: 1, per: .seconds(10)),
      [
        .reserve(1, Booked(at: .zero, delay: .zero)), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .block(for: .seconds(30)), .reserve(1, Booked(at: .seconds(30), delay: .seconds(30))), .reset(),
        .cancel(booking: 2), .retryAfter(1, .seconds(20)), .tryAcquire(1, false), .count(1),
      ]),
    StoreScenario(
      "a booking made during a block forgets nothing still ahead now (bucket)",
      .bucket(limit: 1, per: .seconds(10), burst: 1),
      [
        .reserve(1, Booked(at: .zero, delay: .zero)), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .block(for: .seconds(30)), .reserve(1, Booked(at: .seconds(30), delay: .seconds(30))), .reset(),
        .cancel(booking: 2), .retryAfter(1, .seconds(10)), .tryAcquire(1, false), .count(1),
      ]),
    StoreScenario(
      "a booking an update forgot keeps no key from rest once the booking ahead is cancelled (window)",
      .window(limit: 1, per: .seconds(10)),
      [
        .tryAcquire(1, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))), .advance(.seconds(5)),
        .update(.window(limit: 1, per: .seconds(2))), .update(.window(limit: 1, per: .seconds(20))),
        .cancel(booking: 0), .count(0), .tryAcquire(1, true),
      ]),
    StoreScenario(
      "a bucket's debt is paid at the refill rate", .bucket(limit: 10, per: .seconds(60), burst: 10),
      [
        .charge(25, .granted(remaining: 0, resetAfter: .seconds(150))), .retryAfter(1, .seconds(96)),
        .advance(.seconds(96)), .tryAcquire(1, true), .tryAcquire(1, false),
      ]),
    StoreScenario(
      "a bucket's refund never rises above a full bucket less the bookings ahead",
      .bucket(limit: 1, per: .seconds(10), burst: 2),
      [
        .tryAcquire(2, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .refund(5, .granted(remaining: 0, resetAfter: .seconds(10) + .nanoseconds(1))),
        .advance(.seconds(10)), .tryAcquire(2, true), .tryAcquire(1, false),
      ]),
    StoreScenario(
      "a booking ahead cancelled after a charge gives back as if the charge had not been made (bucket)",
      .bucket(limit: 1, per: .seconds(10), burst: 2),
      [
        .tryAcquire(2, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .charge(1, .granted(remaining: 0, resetAfter: .seconds(40))), .retryAfter(1, .seconds(30)),
        .cancel(booking: 0), .retryAfter(1, .seconds(20)), .advance(.seconds(20)), .tryAcquire(1, true),
        .tryAcquire(1, false),
      ]),
    StoreScenario(
      "a booking ahead cancelled after a refund gives back as if it had never been made (bucket)",
      .bucket(limit: 1, per: .seconds(10), burst: 3),
      [
        .tryAcquire(3, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .refund(1, .granted(remaining: 0, resetAfter: .seconds(30))), .cancel(booking: 0),
        .tryAcquire(2, false), .tryAcquire(1, true), .tryAcquire(1, false), .retryAfter(1, .seconds(10)),
      ]),
    StoreScenario(
      "a booking ahead cancelled after an update gives back as if it had never been made (bucket)",
      .bucket(limit: 1, per: .seconds(10), burst: 2),
      [
        .tryAcquire(2, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .update(.bucket(limit: 1, per: .seconds(10), burst: 3)), .cancel(booking: 0),
        .tryAcquire(1, false), .retryAfter(1, .seconds(10)),
      ]),
    StoreScenario(
      "a booking ahead cancelled after a reset gives back as if it had never been made (bucket)",
      .bucket(limit: 1, per: .seconds(10), burst: 2),
      [
        .tryAcquire(2, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))), .reset(),
        .cancel(booking: 0), .tryAcquire(2, true), .tryAcquire(1, false),
      ]),
    StoreScenario(
      "a booking ahead cancelled after a charge gives back as if the charge had not been made (window)",
      .window(limit: 2, per: .seconds(10)),
      [
        .tryAcquire(2, true), .reserve(1, Booked(at: .seconds(10), delay: .seconds(10))),
        .charge(1, .granted(remaining: 0, resetAfter: .seconds(20))), .cancel(booking: 0),
        .retryAfter(1, .seconds(10)), .advance(.seconds(10)), .tryAcquire(2, true), .tryAcquire(1, false),
      ]),
    StoreScenario(
      "a bucket's reset is a full bucket", .bucket(limit: 1, per: .seconds(10), burst: 3),
      [
        .charge(7, .granted(remaining: 0, resetAfter: .seconds(70))), .reset(),
        .peek(1, .granted(remaining: 2, resetAfter: .seconds(10))), .tryAcquire(3, true),
      ]),
    StoreScenario(
      "an update to a higher limit grants at once, every booking kept", .window(limit: 2, per: .seconds(10)),
      [
        .tryAcquire(2, true), .advance(.seconds(5)), .tryAcquire(1, false),
        .update(.window(limit: 3, per: .seconds(10))),
        .decide(1, .granted(remaining: 0, resetAfter: .seconds(10))), .retryAfter(1, .seconds(5)),
      ]),
    StoreScenario(
      "an update to a longer window forgets what had left the old one", .window(limit: 2, per: .seconds(4)),
      [
        .tryAcquire(1, true), .advance(.seconds(3)), .tryAcquire(1, true), .advance(.seconds(3)),
        .update(.window(limit: 2, per: .seconds(8))),
        .decide(1, .granted(remaining: 0, resetAfter: .seconds(8))), .retryAfter(1, .seconds(5)),
      ]),
    StoreScenario(
      "an update keeps a bucket's credit, capped by the new burst", .bucket(limit: 10, per: .seconds(10), burst: 10),
      [
        .tryAcquire(10, true), .advance(.seconds(5)), .update(.bucket(limit: 20, per: .seconds(10), burst: 20)),
        .decide(1, .granted(remaining: 4, resetAfter: .seconds(8))),
        .update(.bucket(limit: 20, per: .seconds(10), burst: 2)),
        .peek(1, .granted(remaining: 1, resetAfter: .milliseconds(500))),
      ]),
  ]
}
