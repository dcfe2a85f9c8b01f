import RateLimit

/// One timeline of decisions on a fresh store, each with the answer the SPEC gives ("RateLimiter: the rules",
/// "Decisions: the rules"). Every store runs every scenario (``StoreScenario/all``) and must give those answers
/// exactly: the in-process rule (SlidingWindow.swift, TokenBucket.swift) and the PostgreSQL one
/// (`ratelimit_decide_v4`) are held to one set of answers written down here, not only to each other.
public struct StoreScenario: Sendable, CustomStringConvertible {
  /// What it shows, as a sentence: the test's argument.
  public let name: String
  /// The rule the store is made with.
  public let rule: StoreRule
  /// The timeline, from a fresh store at `.zero`.
  public let steps: [StoreStep]

  /// The ``name``.
  public var description: String { name }

  /// A scenario named `name`, on a store made for `rule`.
  public init(_ name: String, _ rule: StoreRule, _ steps: [StoreStep]) {
    (self.name, self.rule, self.steps) = (name, rule, steps)
  }

  /// The decision's quota and window, as every decision of `rule` reports them.
  static func quota(of rule: StoreRule) -> String {
    switch rule {
    case .window(let limit, let window): "\(limit) per \(window)"
    case .bucket(_, let window, let burst): "\(burst) per \(window)"
    }
  }
}

/// One step of a scenario: a move of the clock, or a decision and its expected answer. Keys default to `"a"`.
public enum StoreStep: Sendable {
  /// Moves the clock: back, if negative.
  case advance(Duration)
  case tryAcquire(Int, key: String = "a", Bool)
  /// The booking expected (its time and delay), or `nil` for none.
  case reserve(Int, key: String = "a", within: Duration? = nil, Booked?)
  case retryAfter(Int, key: String = "a", Duration?)
  case decide(Int, key: String = "a", Reported)
  /// `acquire` on a task of its own, which must end without waiting (the kit's clock runs no timer).
  case acquire(Int, key: String = "a", within: Duration? = nil, Acquired)
  /// `acquire` on a task cancelled before it starts: `CancellationError`, and nothing booked.
  case acquireOnACancelledTask(Int, key: String = "a")
  /// `acquire` that must wait: once it has scheduled its timer its task is cancelled, and it must throw
  /// `CancellationError` having given its booking back.
  case acquireCancelledWhileWaiting(Int, key: String = "a")
  /// Cancels the scenario's `booking`-th booking (counting from 0, in the order they were made).
  case cancel(booking: Int)
  case count(Int)
  /// SPEC 4.2: `peek`, `charge` and `refund` with what they report; `reset`; `block`; `update` to a rule of the
  /// same kind (later decisions report its quota).
  case peek(Int, key: String = "a", Reported)
  case charge(Int, key: String = "a", Reported)
  case refund(Int, key: String = "a", Reported)
  case reset(key: String = "a")
  case block(key: String = "a", for: Duration)
  case update(StoreRule)
}

/// A booking's instant and delay.
public struct Booked: Sendable, Equatable, CustomStringConvertible {
  /// The booking's instant, on the store's clock.
  public let time: Duration
  /// Its instant minus the decision's.
  public let delay: Duration

  /// A booking at `time`, `delay` after its decision.
  public init(at time: Duration, delay: Duration) {
    (self.time, self.delay) = (time, delay)
  }

  /// As a mismatch shows it.
  public var description: String { "booked at \(time), delay \(delay)" }
}

/// What a decision reports, beside the rule's quota and window.
public struct Reported: Sendable, Equatable, CustomStringConvertible {
  /// `RateLimitDecision.isGranted`.
  public let isGranted: Bool
  /// `RateLimitDecision.remaining`.
  public let remaining: Int
  /// `RateLimitDecision.resetAfter`.
  public let resetAfter: Duration
  /// `RateLimitDecision.retryAfter`.
  public let retryAfter: Duration?

  /// Granted: `retryAfter` is `nil`.
  public static func granted(remaining: Int, resetAfter: Duration) -> Reported {
    Reported(isGranted: true, remaining: remaining, resetAfter: resetAfter, retryAfter: nil)
  }

  /// Refused: `retryAfter` is `nil` only if the request can never be granted (more than the capacity).
  public static func refused(remaining: Int, resetAfter: Duration, retryAfter: Duration?) -> Reported {
    Reported(isGranted: false, remaining: remaining, resetAfter: resetAfter, retryAfter: retryAfter)
  }

  /// As a mismatch shows it.
  public var description: String {
    "\(isGranted ? "granted" : "refused"), remaining \(remaining), reset after \(resetAfter), retry after "
      + (retryAfter.map { "\($0)" } ?? "nil")
  }
}

extension StoreScenario {
  /// Plays the scenario on `store`, made fresh for ``rule`` on `clock`; every answer that differs from the
  /// expected one, as "step N (what): expected X, got Y". Empty: the store passes.
  public func mismatches(on store: some StoreUnderTest, clock: KitClock) async throws -> [String] {
    var mismatches: [String] = []
    var bookings: [StoreBooking?] = []
    /// The work scheduled by acquires that waited (their timers): the only work a scenario schedules.
    var expectedScheduled = 0
    /// The rule the store decides by now: the scenario's, until an `update`.
    var rule = self.rule
    func check<Value: Equatable>(_ index: Int, _ step: String, _ expected: Value, _ got: Value) {
      if got != expected { mismatches.append("step \(index) (\(step)): expected \(expected), got \(got)") }
    }
    for (index, step) in steps.enumerated() {
      switch step {
      case .advance(let duration):
        clock.move(by: duration)
      case .tryAcquire(let permits, let key, let expected):
        check(index, "tryAcquire(\(permits)) for \(key)", expected, try await store.tryAcquire(permits, for: key))
      case .reserve(let permits, let key, let maxDelay, let expected):
        let booking = try await store.reserve(permits, for: key, within: maxDelay)
        bookings.append(booking)
        let got = booking.map { Booked(at: $0.time, delay: $0.delay) }
        check(index, "reserve(\(permits)) for \(key) within \(maxDelay.map { "\($0)" } ?? "nil")", expected, got)
      case .retryAfter(let permits, let key, let expected):
        check(index, "retryAfter(\(permits)) for \(key)", expected, try await store.retryAfter(permits, for: key))
      case .decide(let permits, let key, let expected):
        let decision = try await store.decide(permits, for: key)
        let got = Reported(
          isGranted: decision.isGranted, remaining: decision.remaining, resetAfter: decision.resetAfter,
          retryAfter: decision.retryAfter)
        check(index, "decide(\(permits)) for \(key)", expected, got)
        check(index, "decide(\(permits))'s quota", Self.quota(of: rule), "\(decision.limit) per \(decision.window)")
        check(index, "decide(\(permits)) answered by a policy", false, decision.isFallback)
      case .cancel(let booking):
        try await bookings[booking]?.cancel()
      case .count(let expected):
        check(index, "count", expected, try await store.count())
      case .peek(let permits, let key, let expected):
        check(index, "peek(\(permits)) for \(key)", expected, Reported(try await store.peek(permits, for: key)))
      case .charge(let permits, let key, let expected):
        check(index, "charge(\(permits)) for \(key)", expected, Reported(try await store.charge(permits, for: key)))
      case .refund(let permits, let key, let expected):
        check(index, "refund(\(permits)) for \(key)", expected, Reported(try await store.refund(permits, for: key)))
      case .reset(let key):
        try await store.reset(key)
      case .block(let key, let duration):
        try await store.block(key, for: duration)
      case .update(let newRule):
        try await store.update(to: newRule)
        rule = newRule
      case .acquire(let permits, let key, let maxDelay, let expected):
        let (got, waited) = await Self.acquire(permits, for: key, within: maxDelay, on: store, clock: clock)
        check(index, "acquire(\(permits)) for \(key) within \(maxDelay.map { "\($0)" } ?? "nil")", expected, got)
        check(index, "acquire(\(permits)) for \(key) waited", false, waited)
      case .acquireOnACancelledTask(let permits, let key):
        let got = await Task {
          withUnsafeCurrentTask { $0?.cancel() }
          return await store.acquire(permits, for: key, within: nil)
        }.value
        check(index, "acquire(\(permits)) for \(key) on a cancelled task", Acquired.cancelled, got)
      case .acquireCancelledWhileWaiting(let permits, let key):
        let (got, waited) = await Self.acquire(permits, for: key, within: nil, on: store, clock: clock)
        expectedScheduled = clock.scheduledCount
        check(index, "acquire(\(permits)) for \(key) cancelled while waiting", Acquired.cancelled, got)
        check(index, "acquire(\(permits)) for \(key) waited", true, waited)
      }
    }
    if clock.scheduledCount != expectedScheduled {
      mismatches.append(
        "scheduled \(clock.scheduledCount) pieces of work, \(expectedScheduled) of them by acquires that waited; "
          + "decisions schedule nothing")
    }
    return mismatches
  }
}

extension StoreScenario {
  /// Runs `acquire` on a task of its own until it ends. If it schedules work on `clock` first (it waits), its
  /// task is cancelled then; `waited` says so. Never hangs: an `acquire` ends, or it waits on the clock.
  static func acquire(
    _ permits: Int, for key: String, within maxDelay: Duration?, on store: some StoreUnderTest, clock: KitClock
  ) async -> (Acquired, waited: Bool) {
    let scheduled = clock.scheduledCount
    let task = Task { await store.acquire(permits, for: key, within: maxDelay) }
    return await withTaskGroup(of: (Acquired?, waited: Bool).self) { group in
      group.addTask { (await task.value, false) }
      group.addTask {
        await clock.waitUntilScheduled(atLeast: scheduled + 1)
        if Task.isCancelled { return (nil, false) }
        task.cancel()
        return (nil, true)
      }
      var answer = Acquired.failed("no answer")
      var waited = false
      for await (got, scheduledFirst) in group {
        if let got {
          answer = got
          group.cancelAll()
        }
        waited = waited || scheduledFirst
      }
      return (answer, waited)
    }
  }
}

extension Reported {
  /// What `decision` reports.
  init(_ decision: RateLimitDecision) {
    self.init(
      isGranted: decision.isGranted, remaining: decision.remaining, resetAfter: decision.resetAfter,
      retryAfter: decision.retryAfter)
  }
}
