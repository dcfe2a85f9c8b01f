import Dispatch
import RateLimit
import Testing

/// Nothing is kept alive that should not be: the limiter, its action and what the action captured are freed
/// after `invalidate()`, after the limiter is dropped with work pending, and after a flushed run completes.
/// Every test goes through all five limiters, each with work pending (a held value, or a run handed to the queue
/// and not started).
@Suite struct LifetimeTests {
  /// A limiter of `kind` on `clock` whose action captures `owner` strongly and records its runs in `ran`.
  static func makeOwned(
    _ kind: LimiterKind, maxWait: Duration? = nil, clock: ManualClock, owner: Owner, ran: Recorder<Int>
  ) -> any Limiting<Int> {
    makeLimiter(kind, interval: .seconds(1), maxWait: maxWait, clock: clock) { (value: Int) in
      owner.touch()
      ran.record(value)
    }
  }

  /// Two calls: the leading modes hand the first to the queue, the others hold the second.
  static func makeBusy(_ limiter: any Limiting<Int>) {
    limiter.call(1)
    limiter.call(2)
  }

  @Test(arguments: LimiterKind.allCases)
  func invalidateReleasesTheActionAndItsCaptures(_ kind: LimiterKind) {
    let clock = ManualClock()
    let ran = Recorder<Int>()
    weak var weakOwner: Owner?
    let limiter: any Limiting<Int> = {
      let owner = Owner()
      weakOwner = owner
      return Self.makeOwned(kind, maxWait: .seconds(2), clock: clock, owner: owner, ran: ran)
    }()
    Self.makeBusy(limiter)
    #expect(weakOwner != nil)
    limiter.invalidate()
    #expect(weakOwner == nil, "the action's captures outlived invalidate()")
    clock.run()
    #expect(ran.count == 0)
    withExtendedLifetime(limiter) {}
  }

  @Test(arguments: LimiterKind.allCases)
  func droppedWithWorkPendingIsFreedAtOnce(_ kind: LimiterKind) {
    let clock = ManualClock()
    let ran = Recorder<Int>()
    weak var weakOwner: Owner?
    weak var weakLimiter: (any Limiting<Int>)?
    do {
      let owner = Owner()
      weakOwner = owner
      let limiter = Self.makeOwned(kind, maxWait: .seconds(2), clock: clock, owner: owner, ran: ran)
      weakLimiter = limiter
      Self.makeBusy(limiter)
    }
    #expect(clock.scheduledCount > 0, "work is pending on the clock")
    #expect(weakLimiter == nil, "the clock's pending work kept the limiter alive")
    #expect(weakOwner == nil)
    clock.run()
    #expect(ran.count == 0)
  }

  @Test(arguments: LimiterKind.allCases)
  func aFlushedRunKeepsTheActionOnlyUntilItHasRun(_ kind: LimiterKind) {
    let clock = ManualClock()
    let ran = Recorder<Int>()
    weak var weakOwner: Owner?
    weak var weakLimiter: (any Limiting<Int>)?
    do {
      let owner = Owner()
      weakOwner = owner
      let limiter = Self.makeOwned(kind, clock: clock, owner: owner, ran: ran)
      weakLimiter = limiter
      Self.makeBusy(limiter)
      limiter.flush()
      limiter.invalidate()
    }
    #expect(weakLimiter == nil)
    let flushed = kind == .throttleLeading || kind == .debounceLeading ? [] : [2]
    // A flushed value runs even though invalidate() followed, so its run holds the action until then.
    #expect((weakOwner != nil) == !flushed.isEmpty)
    clock.run()
    #expect(ran.values == flushed)
    #expect(weakOwner == nil, "the action outlived its flushed run")
  }

  /// The usual pattern: an owner keeps a limiter whose action captures the owner weakly. Dropping the owner
  /// with work pending, on the real clock, frees both at once.
  @Test(arguments: LimiterKind.allCases)
  func anOwnerOfALimiterIsFreedWithWorkPendingOnTheRealClock(_ kind: LimiterKind) {
    final class ViewModel: Sendable {
      let reload: any Limiting<Int>
      init(kind: LimiterKind, queue: DispatchQueue) {
        let model = WeakBox<ViewModel>()
        reload = makeLimiter(kind, interval: .seconds(60), queue: queue, clock: .dispatch) { (_: Int) in
          _ = model.object
        }
        model.object = self
      }
    }
    let queue = DispatchQueue(label: "LifetimeTests.owner")
    weak var weakModel: ViewModel?
    weak var weakLimiter: (any Limiting<Int>)?
    do {
      let model = ViewModel(kind: kind, queue: queue)
      weakModel = model
      weakLimiter = model.reload
      Self.makeBusy(model.reload)
    }
    #expect(weakModel == nil)
    #expect(weakLimiter == nil, "a pending DispatchClock timer kept the limiter alive")
    queue.sync {}
  }
}

/// A run handed to a custom clock that never gets to run it (a `ManualClock` nobody advances) must not keep the
/// limiter's engine alive: the engine holds the clock, so a delivery that held the engine would make a cycle.
@Suite struct HandedRunLifetimeTests {
  @Test(arguments: LimiterKind.allCases)
  func aRunHandedToAClockThatNeverRunsItLeaksNothing(_ kind: LimiterKind) {
    weak var weakClock: ManualClock?
    weak var weakOwner: Owner?
    do {
      let clock = ManualClock()
      weakClock = clock
      let owner = Owner()
      weakOwner = owner
      let limiter = makeLimiter(kind, interval: .zero, clock: clock) { (_: Int) in owner.touch() }
      limiter.call(1)  // a zero interval: a run handed to the clock at once
      #expect(clock.scheduledCount > 0)
    }
    #expect(weakOwner == nil, "the action outlived its limiter")
    #expect(weakClock == nil, "the clock, its pending delivery and the engine keep each other alive")
  }
}
