public import Dispatch
public import RateLimit

/// The kit's clock: `now` moves only when a scenario moves it, forwards or back (a wall clock corrected by NTP).
/// Work scheduled on it is counted, never run: the kit's decisions schedule nothing.
public final class KitClock: RateLimitClock, Sendable {
  private let state = LockedValue((now: Duration.zero, scheduled: 0))

  /// A clock at `.zero`.
  public init() {}

  /// Where the scenario has moved it.
  public var now: Duration { state.withLock { $0.now } }

  /// How many pieces of work were scheduled (none, for the decisions the kit makes).
  public var scheduledCount: Int { state.withLock { $0.scheduled } }

  /// Counts `work`; never runs it.
  public func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    state.withLock { $0.scheduled += 1 }
  }

  /// Moves `now` by `duration`: forwards if positive, back if negative.
  public func move(by duration: Duration) {
    state.withLock { $0.now += duration }
  }
}
