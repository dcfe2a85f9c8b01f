#if Postgres
  import Logging
  import PostgresNIO
  import RateLimit

  /// The database behind a ``PostgresRateLimiter``: everything that talks to it or remembers what it said. The
  /// limiter is the front door (its parameters, its policy when the database cannot answer, the public answers:
  /// `PostgresRateLimiter+Door.swift`); the store sends the statements and keeps what sending them needs:
  ///
  /// | piece | file |
  /// |---|---|
  /// | a decision asked (`ask`), a booking cancelled or revoked later | `PostgresPermitStore+Ask.swift` |
  /// | `peek`, the operations, `update`, a penalising decision, `count`, `sweep` | `PostgresPermitStore+Operations.swift` |
  /// | several stores' parts in one statement; a grant given back | `PostgresPermitStore+Joint.swift` |
  /// | decisions coalesced into one statement, one lane per limiter | `PostgresPermitStore+Coalescing.swift`, `Coalescer.swift` |
  /// | one round trip: deadline, retries, the outage back-off | `PostgresPermitStore+RoundTrip.swift`, `Outage.swift`, `DeadlineTimer.swift` |
  /// | the schema and the name's rule, once | `PostgresPermitStore+Prepare.swift` |
  /// | the stored rule adopted, the fallback sized to it | `PostgresPermitStore+StoredRule.swift` |
  /// | the instants sent (`.clock(c)` on a time line that never goes back) | `PostgresPermitStore+Clock.swift` |
  /// | this process's refusals, answered without a round trip | `LocalRefusals.swift` |
  /// | the statements and their rows | `SQL/` |
  final class PostgresPermitStore: Sendable {
    let client: PostgresClient
    let name: String
    let nameBytes: ByteBuffer
    /// The window the limiter was made with, in whole nanoseconds (at least 1): sent with every statement for a
    /// name not stored yet (the stored rule decides).
    let windowNanoseconds: Int64
    /// The limiter's parameters, shared with it: the stored rule read back is adopted here (another process's
    /// `update`).
    let door: PermitFrontDoor
    /// `.clock(c)`'s `c`; `nil` with `.database`.
    let clock: (any RateLimitClock)?
    /// The limiter's `timeout`: every round trip's bound.
    let timeout: Duration
    /// What this process waits on: `c`, or a `ContinuousClock` with `.database`.
    let localClock: any RateLimitClock
    /// When the next decision sweeps, on `localClock`.
    let nextSweep = LockedValue(Duration.zero)
    /// The outage back-off: decisions go straight to the policy for a while after the database failed.
    let outage = Outage()
    /// Decisions queued while one of this limiter's statements is in flight, to go together in the next.
    let coalescer = Coalescer()
    /// Bookings given up on, revoked in the background while the store lives (``Revocation``).
    let revocations = Revocation.queue()
    /// Every decision's deadline (one timer, not a task a decision).
    let deadlines = DeadlineTimer()
    /// Keys the database refused, answered here until they can grant again; `nil` with `localRefusals: false`.
    let localRefusals: LocalRefusals?
    /// The steps back of `.clock(c)`: see ``nowSent``.
    let clockSteps = LockedValue(ClockSteps())
    /// This process's `acquire`s waiting on `localClock`, moved back when it steps back.
    let waiters: WaiterTimeline
    /// Whether `prepare()` has succeeded in this process, or is running (decisions prepare first until it has).
    let preparation = LockedValue(Preparation.idle)
    /// Where the limiter logs (swift-log): given at init, or the task-local logger then.
    let logger: Logger
    /// The parameters the limiter was made with (the stored rule may differ: ``adopt(_:)``).
    let configured: PermitParameters
    /// `.fallback`'s limiter, sized to the stored rule (``follow(_:)``); `nil` with any other policy.
    let fallback: SizedFallback?
    /// Whether the stored rule's warning was logged, and the fallback's size.
    let ruleNotices = LockedValue(RuleNotices())
    /// When the store was made (``localNanoseconds``), and the database's clock less it, once read.
    let started = ContinuousClock.now
    let databaseClockOffset = LockedValue<(offset: Int64, at: Int64)?>(nil)

    init(
      client: PostgresClient, name: String, door: PermitFrontDoor, clock: (any RateLimitClock)?, timeout: Duration,
      localRefusals: Bool, fallback: KeyedRateLimiter<String>?, logger: Logger
    ) {
      (self.client, self.name, self.door, self.clock, self.timeout, self.logger) =
        (client, name, door, clock, timeout, logger)
      nameBytes = ByteBuffer(string: name)
      configured = door.parameters
      self.fallback = fallback.map(SizedFallback.init)
      windowNanoseconds = max(1, wholeNanoseconds(door.window, roundingUp: true))
      localClock = clock ?? SwiftClock(ContinuousClock())
      waiters = WaiterTimeline(localClock)
      self.localRefusals = localRefusals ? LocalRefusals() : nil
    }

    var limit: Int { door.limit }
    var window: Duration { door.window }
    var burst: Int? { door.burst }
  }
#endif

#if Postgres
  extension PostgresRateLimiter {
    typealias Decision = PostgresPermitStore.Decision
    typealias Unavailable = PostgresPermitStore.Unavailable
    typealias Mode = PostgresPermitStore.Mode
  }
#endif
