public import Dispatch
public import RateLimit

/// A ``ManualClock`` seen through a setting that can be moved back (a wall clock corrected by NTP): `now` is the
/// manual clock's time minus the steps back, and work is scheduled on the manual clock at the same real moment.
/// For waiters across a step: advance ``base``, then ``goBack(by:)``.
public final class SetBackClock: RateLimitClock, Sendable {
  /// The clock that runs the work; advance it to move time forwards.
  public let base = ManualClock()
  private let setBack = LockedValue(Duration.zero)

  /// A clock at `.zero`, never set back.
  public init() {}

  /// The base clock's time minus every step back.
  public var now: Duration { base.now - setBack.withLock { $0 } }

  /// Schedules `work` on the base clock at the moment this clock reaches `deadline`.
  public func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    base.schedule(at: deadline + setBack.withLock { $0 }, on: queue, work)
  }

  /// Sets the clock back by `jump`.
  public func goBack(by jump: Duration) {
    setBack.withLock { $0 += jump }
  }
}
