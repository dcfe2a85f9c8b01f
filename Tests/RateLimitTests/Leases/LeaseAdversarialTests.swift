import Dispatch
import Foundation
import RateLimitStoreKit
import Testing

@testable import RateLimit

/// An adversarial review of SPEC 4.4's in-process leases: each test attacks one rule of "Leases: the rules" and
/// "Leases: the details". ManualClock throughout, except where a real-clock race is the point (bounded).
@Suite struct LeaseAdversarialTests {
  /// Records the indices of waiters in the order their `acquire` returned.
  final class Served: @unchecked Sendable {
    // @unchecked Sendable: `order` is only touched under `lock`.
    private let lock = Lock()
    private var order: [Int] = []
    func record(_ index: Int) { lock.withLock { order.append(index) } }
    var value: [Int] { lock.withLock { order } }
    var count: Int { lock.withLock { order.count } }
  }

  // MARK: - Deadlines are exclusive, seen from tryAcquire / decide / acquire(.zero)

  /// "Deadlines are exclusive. At an instant where waiters' maxWait ends, all of them give up first": at the
  /// deadline instant the waiter has given up, so nobody waits and `tryAcquire` must not be refused "because
  /// someone waits". Other work due at the same instant, scheduled first, runs before the waiter's own timer
  /// (ManualClock: same instant, FIFO), so it sees the instant before the timer has run.
  @Test func atAWaitersDeadlineInstantTryAcquireIsNotHeldBackByIt() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 3, clock: clock)
    let held = try #require(limiter.tryAcquire(2, for: "k"))
    let results = LockedBox<(Bool, Int, Bool)?>(nil)
    // Scheduled before the waiter joins: runs first at 1 s.
    clock.schedule(at: .seconds(1), on: .main) {
      let lease = limiter.tryAcquire(1, for: "k")
      lease?.release()
      let decision = limiter.decide(1, for: "k")
      results.set((lease != nil, decision.remaining, decision.isGranted))
      decision.lease?.release()
    }
    let big = await waiter(limiter, 2, within: .seconds(1), position: 1)
    clock.advance(by: .seconds(1))
    await #expect(throws: RateLimiterError.waitedTooLong(maxWait: .seconds(1))) { try await big.value }
    let seen = try #require(results.get())
    #expect(seen.0, "tryAcquire(1) at the waiter's deadline: 1 permit free and the waiter has given up")
    #expect(seen.2, "decide(1) at the waiter's deadline decides as tryAcquire")
    held.release()
    #expect(limiter.count == 0)
  }

  /// The same instant, from `acquire(within: .zero)`: "maxWait: .zero with permits free and nobody waiting is
  /// served".
  @Test func atAWaitersDeadlineInstantAcquireZeroIsServed() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 3, clock: clock)
    let held = try #require(limiter.tryAcquire(2, for: "k"))
    let outcome = LockedBox<String?>(nil)
    let started = CountWaiter()
    clock.schedule(at: .seconds(1), on: .main) {
      // Run the async acquire from the timer and wait for it, still at the deadline instant.
      let done = DispatchSemaphore(value: 0)
      Task {
        do {
          let lease = try await limiter.acquire(1, for: "k", within: .zero)
          outcome.set("served")
          lease.release()
        } catch {
          outcome.set("\(error)")
        }
        done.signal()
      }
      started.increment()
      done.wait()
    }
    let big = await waiter(limiter, 2, within: .seconds(1), position: 1)
    clock.advance(by: .seconds(1))
    await started.wait(until: 1)
    _ = await big.result
    #expect(outcome.get() == "served")
    held.release()
  }

  /// From the release side (already right in the code): a release at the waiter's own deadline instant, run
  /// before its timer, does not serve it.
  @Test func aReleaseAtTheDeadlineInstantBeforeTheTimerDoesNotServeTheWaiter() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 1, clock: clock)
    let held = LockedBox<Lease?>(limiter.tryAcquire(for: "k"))
    let behind = LockedBox<Int?>(nil)
    clock.schedule(at: .seconds(1), on: .main) {
      held.get()?.release()
      behind.set(limiter.inUse(for: "k"))
    }
    let due = await waiter(limiter, within: .seconds(1), position: 1)
    let patient = await waiter(limiter, position: 2)
    clock.advance(by: .seconds(1))
    await #expect(throws: RateLimiterError.waitedTooLong(maxWait: .seconds(1))) { try await due.value }
    #expect(behind.get() == 1, "the patient waiter behind is served inside that release")
    try await patient.value.release()
    held.set(nil)
    #expect(limiter.count == 0)
  }

  /// The same on the real clock: waiters' timers run on one serial queue shared by every limiter; while it is
  /// busy (here: held on purpose; in life: timer latency, a burst of timers), a waiter whose maxWait has long
  /// passed still blocks tryAcquire and decide for its key, which report remaining 0 with permits free.
  @Test(.timeLimit(.minutes(1))) func anOverdueWaiterBlocksTryAcquireUntilItsTimerRuns() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 3)
    let held = try #require(limiter.tryAcquire(2, for: "k"))
    let release = DispatchSemaphore(value: 0)
    PermitClock.queue.async { _ = release.wait(timeout: .now() + .seconds(10)) }
    let big = await waiter(limiter, 2, within: .milliseconds(1), position: 1)
    let start = ContinuousClock.now
    try await Task.sleep(for: .milliseconds(50))
    #expect(ContinuousClock.now - start >= .milliseconds(50))
    let decision = limiter.decide(3, for: "k")
    let lease = limiter.tryAcquire(1, for: "k")
    release.signal()
    #expect(lease != nil, "50 ms after a 1 ms maxWait ended, the waiter still holds the line")
    #expect(decision.remaining == 1, "remaining reports 0 with a permit free and nobody really waiting")
    lease?.release()
    _ = await big.result
    held.release()
    #expect(limiter.count == 0)
  }

  // MARK: - Through the protocol, on the main actor

  /// `KeyedConcurrencyLimiter<String>` as `any SharedConcurrencyLimiter`: the same decisions.
  @Test func throughTheSharedProtocol() async throws {
    let keyed = KeyedConcurrencyLimiter<String>(limit: 2)
    let shared: any SharedConcurrencyLimiter = keyed
    #expect(shared.limit == 2)
    let a = try await shared.tryAcquire(1, for: "k")
    let d = try await shared.decide(1, for: "k")
    #expect(a != nil && d.isGranted && d.remaining == 0)
    #expect(try await shared.inUse(for: "k") == 2)
    #expect(try await shared.tryAcquire(3, for: "k") == nil)
    a?.release()
    d.lease?.release()
    #expect(try await shared.inUse(for: "k") == 0 && keyed.count == 0)
  }

  final class NotSendable { var value = 1 }

  /// withLease on the main actor returning a non-Sendable value (the `isolation:` parameter).
  @MainActor @Test func withLeaseOnTheMainActorKeepsANonSendableResult() async throws {
    let limiter = ConcurrencyLimiter(limit: 1)
    let keyed = KeyedConcurrencyLimiter<String>(limit: 1)
    let made = try await limiter.withLease { NotSendable() }
    let madeKeyed = try await keyed.withLease(for: "k") { NotSendable() }
    #expect(made.value + madeKeyed.value == 2)
    #expect(limiter.inUse == 0 && keyed.count == 0)
  }

  // MARK: - maxWait arithmetic

  /// A sub-nanosecond `maxWait` is not `.zero`: at the instant it was asked the wait has not ended, so a waiter
  /// joins and a release at that same instant serves it. Rounding the deadline down to whole nanoseconds makes
  /// it `.zero` (throws at once).
  @Test func aSubNanosecondMaxWaitIsNotZero() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 3, clock: clock)
    let held = try #require(limiter.tryAcquire(2, for: "k"))
    let half = Duration(secondsComponent: 0, attosecondsComponent: 500_000_000)  // 0.5 ns
    let ended = CallCounter()
    let task = Task {
      defer { ended.increment() }
      return try await limiter.acquire(2, for: "k", within: half)
    }
    // Either it joins the line (right) or it throws at once (wrong): wait for one of the two, bounded.
    await waitUntil(seconds: 5) { ended.value == 1 || hasWaiter(limiter) }
    held.release()  // at the same instant: serves it if it waits
    let result = await task.result
    #expect(throws: Never.self, "a 0.5 ns maxWait threw at once, as .zero") { try result.get().release() }
  }

  /// 1.5 ns on whole-nanosecond time: at 1 ns the wait has not ended (its deadline is 1.5 ns), so a release at
  /// 1 ns serves it.
  @Test func aFractionalMaxWaitIsNotCutToTheNanosecondBelow() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 1, clock: clock)
    let held = LockedBox<Lease?>(limiter.tryAcquire(for: "k"))
    clock.schedule(at: .nanoseconds(1), on: .main) { held.get()?.release() }
    let oneAndAHalf = Duration(secondsComponent: 0, attosecondsComponent: 1_500_000_000)
    let task = await waiter(limiter, within: oneAndAHalf, position: 1)
    clock.advance(to: .nanoseconds(1))
    let result = await task.result
    #expect(throws: Never.self, "released at 1 ns, before the 1.5 ns deadline") { try result.get().release() }
    held.set(nil)
  }

  /// A huge `maxWait` (beyond Int64 nanoseconds) saturates: no trap, no timer in the past.
  @Test func aHugeMaxWaitSaturates() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 1, clock: clock)
    let held = try #require(limiter.tryAcquire(for: "k"))
    clock.advance(by: .seconds(10))
    let task = await waiter(limiter, within: .seconds(Int64.max), position: 1)
    clock.advance(by: .seconds(1_000_000))
    #expect(limiter.inUse(for: "k") == 1 && limiter.count == 1, "still waiting")
    held.release()
    try await task.value.release()
    #expect(limiter.count == 0)
  }

  /// "maxWait: .zero is tryAcquire that throws": free permits but someone waiting → throws, schedules nothing,
  /// takes nothing.
  @Test func maxWaitZeroNeverJumpsTheLine() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 3, clock: clock)
    let held = try #require(limiter.tryAcquire(2, for: "k"))
    let big = await waiter(limiter, 2, position: 1)
    await #expect(throws: RateLimiterError.waitedTooLong(maxWait: .zero)) {
      try await limiter.acquire(1, for: "k", within: .zero)
    }
    #expect(clock.scheduledCount == 0)
    #expect(limiter.inUse(for: "k") == 2)
    held.release()
    try await big.value.release()
    #expect(limiter.count == 0)
  }

  // MARK: - Cancellation at every moment

  /// An already-cancelled task: CancellationError, nothing taken, nothing scheduled — even with a maxWait and
  /// permits free.
  @Test func anAlreadyCancelledTaskTakesNothingAndSchedulesNothing() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 2, clock: clock)
    let held = try #require(limiter.tryAcquire(2, for: "k"))
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      await #expect(throws: CancellationError.self) { try await limiter.acquire(1, for: "free", within: .seconds(1)) }
      await #expect(throws: CancellationError.self) { try await limiter.acquire(1, for: "k", within: .seconds(1)) }
      await #expect(throws: CancellationError.self) {
        try await limiter.withLease(1, for: "k", within: .seconds(1)) { Issue.record("body ran") }
      }
    }
    await task.value
    #expect(clock.scheduledCount == 0)
    #expect(limiter.count == 1 && limiter.inUse(for: "free") == 0)
    held.release()
    #expect(limiter.count == 0)
  }

  /// Cancellation while waiting at the head: the hand-off to the waiter behind happens inside `cancel()` (the
  /// cancellation handler runs synchronously there).
  @Test func cancellingTheHeadServesTheNextInsideCancel() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 2, clock: ManualClock())
    let held = try #require(limiter.tryAcquire(1, for: "k"))
    let head = await waiter(limiter, 2, position: 1)
    let next = await waiter(limiter, 1, position: 2)
    head.cancel()
    #expect(limiter.inUse(for: "k") == 2, "served when cancel() returned")
    await #expect(throws: CancellationError.self) { try await head.value }
    try await next.value.release()
    held.release()
    #expect(limiter.count == 0)
  }

  /// Cancelled after being served (the lease is already in `inUse`): the task still gets its lease (nothing is
  /// given twice, nothing is lost); dropping it releases.
  @Test func cancellationAfterServiceKeepsTheLeaseAndDroppingItReleases() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 1, clock: ManualClock())
    do {
      let held = try #require(limiter.tryAcquire(for: "k"))
      let task = await waiter(limiter, position: 1)
      held.release()
      task.cancel()
      let result = await task.result
      #expect(throws: Never.self) { _ = try result.get() }
      #expect(limiter.inUse(for: "k") == 1)
    }
    // The task (which keeps its value) and the result are gone: the lease with them.
    #expect(limiter.inUse(for: "k") == 0)
    #expect(limiter.count == 0)
  }

  /// withLease whose acquire is cancelled while waiting: body never runs, CancellationError, nothing held.
  @Test func withLeaseCancelledWhileWaitingNeverRunsTheBody() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 1, clock: ManualClock())
    let held = try #require(limiter.tryAcquire(for: "k"))
    let ran = CallCounter()
    let task = Task { try await limiter.withLease(for: "k") { ran.increment() } }
    await limiter.lines.waitUntilWaiting(atLeast: 1, for: "k")
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(ran.value == 0 && limiter.inUse(for: "k") == 1)
    held.release()
    #expect(limiter.count == 0)
  }

  /// withLease rethrows body's error, not another, and releases before returning.
  @Test func withLeaseRethrowsBodysOwnErrorAndReleases() async throws {
    let limiter = ConcurrencyLimiter(limit: 1)
    struct Mine: Error, Equatable { let code: Int }
    await #expect(throws: Mine(code: 7)) {
      try await limiter.withLease { () async throws -> Int in
        #expect(limiter.inUse == 1)
        throw Mine(code: 7)
      }
    }
    #expect(limiter.inUse == 0)
    // A body that throws CancellationError of its own without the task being cancelled.
    await #expect(throws: CancellationError.self) {
      try await limiter.withLease { () async throws -> Int in throw CancellationError() }
    }
    #expect(limiter.inUse == 0)
  }

  // MARK: - FIFO with mixed sizes, long lines

  /// A long line (60) with most of its first 40 leaving from the middle (the line's compaction path): the rest
  /// served exactly in arrival order, one hand-off per release.
  @Test func aLongLineWithHolesIsServedInArrivalOrder() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 1, clock: ManualClock())
    var held = try #require(limiter.tryAcquire(for: "k"))
    let served = Served()
    var tasks: [Task<Lease, any Error>] = []
    for index in 0..<60 {
      tasks.append(
        Task {
          let lease = try await limiter.acquire(1, for: "k")
          served.record(index)
          return lease
        })
      await limiter.lines.waitUntilWaiting(atLeast: index + 1, for: "k")
    }
    let leaving = Set((1..<40).filter { $0 % 7 != 0 })
    for index in leaving.sorted(by: >) { tasks[index].cancel() }
    for index in leaving { _ = await tasks[index].result }
    let staying = (0..<60).filter { !leaving.contains($0) }
    var expected: [Int] = []
    for index in staying {
      held.release()
      expected.append(index)
      await waitUntil(seconds: 5) { served.count == expected.count }
      #expect(served.value == expected)
      guard served.value == expected else { break }
      held = try await tasks[index].value
      #expect(limiter.inUse(for: "k") == 1)
    }
    held.release()
    #expect(limiter.count == 0 && limiter.inUse(for: "k") == 0)
  }

  // MARK: - update

  /// `update` down makes the head too big: it throws exceedsCapacity at once, and the waiters behind it that fit
  /// are served inside `update`.
  @Test func updateDownFailsTheHeadAndServesThoseBehindAtOnce() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 4, clock: ManualClock())
    let held = try #require(limiter.tryAcquire(1, for: "k"))
    let head = await waiter(limiter, 4, position: 1)
    let a = await waiter(limiter, 1, position: 2)
    let b = await waiter(limiter, 2, position: 3)
    let c = await waiter(limiter, 1, position: 4)
    limiter.update(limit: 3)
    await #expect(throws: RateLimiterError.exceedsCapacity(requested: 4, capacity: 3)) { try await head.value }
    // Limit 3: 1 held, a (1) fits → 2, b (2) does not fit → c waits behind b.
    #expect(limiter.inUse(for: "k") == 2)
    let aLease = try await a.value
    held.release()
    #expect(limiter.inUse(for: "k") == 3, "b served inside release")
    let bLease = try await b.value
    aLease.release()
    #expect(limiter.inUse(for: "k") == 3, "c served inside release")
    try await c.value.release()
    bLease.release()
    #expect(limiter.count == 0)
  }

  /// update down below leases held, then decide: remaining 0 (never negative), refused; update up: the line is
  /// served at once, in order, and decide reports limit − inUse.
  @Test func decideAcrossUpdates() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 5, clock: ManualClock())
    let held = try #require(limiter.tryAcquire(4, for: "k"))
    limiter.update(limit: 2)
    let refused = limiter.decide(1, for: "k")
    #expect(!refused.isGranted && refused.remaining == 0 && refused.limit == 2)
    let tooBig = limiter.decide(3, for: "k")
    #expect(!tooBig.isGranted && tooBig.remaining == 0 && tooBig.limit == 2)
    let fresh = limiter.decide(3, for: "fresh")
    #expect(!fresh.isGranted && fresh.remaining == 2, "a refusal takes nothing and reports the same")
    #expect(limiter.count == 1, "a refused decision on a new key leaves nothing behind")
    let w = await waiter(limiter, 2, position: 1)
    limiter.update(limit: 6)
    #expect(limiter.inUse(for: "k") == 6)
    let after = limiter.decide(1, for: "k")
    #expect(!after.isGranted && after.remaining == 0 && after.limit == 6)
    held.release()
    let last = limiter.decide(1, for: "k")
    #expect(last.isGranted && last.remaining == 3)
    try await w.value.release()
    withExtendedLifetime(last) {}
  }

  /// `update` up serves the lines of every key at once, inside the call; a waiter too big for a lowered limit on
  /// any key throws exceedsCapacity naming the new capacity.
  @Test func updateActsOnEveryKeysLine() async throws {
    let limiter = KeyedConcurrencyLimiter<String>(limit: 2, clock: ManualClock())
    var held: [Lease] = []
    var waiting: [Task<Lease, any Error>] = []
    for key in ["a", "b", "c"] {
      held.append(try #require(limiter.tryAcquire(2, for: key)))
      waiting.append(await waiter(limiter, 2, for: key, position: 1))
    }
    limiter.update(limit: 4)
    #expect(["a", "b", "c"].allSatisfy { limiter.inUse(for: $0) == 4 })
    for task in waiting { try await task.value.release() }
    let tooBig = await waiter(limiter, 4, for: "b", position: 1)
    limiter.update(limit: 1)
    await #expect(throws: RateLimiterError.exceedsCapacity(requested: 4, capacity: 1)) { try await tooBig.value }
    held.removeAll()
    #expect(limiter.count == 0)
    await #expect(throws: RateLimiterError.exceedsCapacity(requested: 2, capacity: 1)) {
      try await limiter.withLease(2, for: "a", within: .zero) { Issue.record("body ran") }
    }
  }

  // MARK: - Cost and timers

  /// "tryAcquire + release on a warm key: no clock read"; an acquire served at once (even with a maxWait)
  /// schedules nothing; one that waits schedules exactly one piece of work, at start + maxWait.
  @Test func clockReadsAndTimers() async throws {
    let clock = RecordingClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 3, clock: clock)
    let warm = try #require(limiter.tryAcquire(1, for: "k"))
    for _ in 0..<1_000 { limiter.tryAcquire(2, for: "k")?.release() }
    for _ in 0..<100 { limiter.tryAcquire(1, for: "cold")?.release() }
    #expect(clock.reads == 0, "tryAcquire and release read the clock")
    clock.base.advance(to: .seconds(5))
    try await limiter.acquire(1, for: "k", within: .seconds(2)).release()
    #expect(clock.deadlines.isEmpty, "served at once: nothing scheduled")
    let held = try #require(limiter.tryAcquire(2, for: "k"))
    let task = await waiter(limiter, 1, within: .seconds(2), position: 1)
    await clock.base.waitUntilScheduled(atLeast: 1)
    #expect(clock.deadlines == [.seconds(7)])
    held.release()
    try await task.value.release()
    warm.release()
    #expect(limiter.count == 0)
  }

  // MARK: - Keys at rest, memory

  /// Every way out of a line leaves nothing behind: cancel, maxWait, update too big, release.
  @Test func everyWayOutLeavesNoKeyBehind() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 2, clock: clock)
    for round in 0..<4 {
      let key = "k\(round)"
      let held = try #require(limiter.tryAcquire(2, for: key))
      let task = await waiter(limiter, 2, for: key, within: round == 1 ? .seconds(1) : nil, position: 1)
      switch round {
      case 0: task.cancel()
      case 1: clock.advance(by: .seconds(1))
      case 2: limiter.update(limit: 1)
      default: held.release()
      }
      _ = await task.result
      if round != 3 { held.release() }
      (try? await task.value)?.release()
      #expect(limiter.count == 0, "round \(round)")
      if round == 2 { limiter.update(limit: 2) }
    }
  }

  /// A waiter with a long maxWait that is served: its timer stays on the clock until the deadline (allowed), but
  /// it must not keep the key (or the limiter's state for it) alive: "memory follows the keys in use".
  @Test func aServedWaitersTimerDoesNotKeepItsKeyAlive() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<TrackedKey>(limit: 1, clock: clock)
    weak var weakKey: TrackedKey.Box?
    do {
      let key = TrackedKey(box: TrackedKey.Box(name: "tenant"))
      weakKey = key.box
      let held = try #require(limiter.tryAcquire(for: key))
      let task = Task { try await limiter.acquire(1, for: key, within: .seconds(3_600)) }
      await limiter.lines.waitUntilWaiting(atLeast: 1, for: key)
      held.release()
      try await task.value.release()
      #expect(limiter.count == 0)
    }
    #expect(clock.scheduledCount <= 1)
    #expect(weakKey == nil, "the key is forgotten but the maxWait timer (an hour) still holds it")
  }

  /// "Memory follows the keys in use": a key's line keeps a slot for every waiter that ever joined while its
  /// head stayed (waiters leaving from behind the head leave a hole that is never reclaimed), so a big waiter at
  /// the head with small waiters timing out or cancelled behind it grows the line's storage without bound (and
  /// every later removal scans it all).
  @Test func waitersLeavingBehindAStuckHeadDoNotGrowTheLine() async throws {
    let clock = ManualClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 2, clock: clock)
    let held = try #require(limiter.tryAcquire(1, for: "k"))
    let head = await waiter(limiter, 2, position: 1)
    for _ in 0..<2_000 {
      let passing = await waiter(limiter, 1, position: 2)
      passing.cancel()
      _ = await passing.result
    }
    let slots = lineSlotCount(limiter.lines, key: "k")
    #expect(slots != nil, "could not reach the line through Mirror")
    #expect((slots ?? 0) <= 64, "the line holds 1 waiter but keeps \(slots ?? -1) slots")
    held.release()
    try await head.value.release()
    #expect(limiter.count == 0)
  }

  // MARK: - Deadlocks

  /// A key's last reference held by the limiter owns a lease of the same limiter: when the key is forgotten
  /// (under the limiter's lock) the lease is deallocated, and its release takes the same lock. Must not deadlock.
  @Test func aLeaseDeallocatedWhenItsOwnerKeyIsForgottenDoesNotDeadlock() throws {
    let limiter = KeyedConcurrencyLimiter<TrackedKey>(limit: 1)
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
      var owner: TrackedKey? = TrackedKey(box: TrackedKey.Box(name: "owner"))
      let ownersLease = limiter.tryAcquire(for: owner!)
      owner!.box.attached = limiter.tryAcquire(for: TrackedKey(box: TrackedKey.Box(name: "other")))
      owner = nil  // the limiter now holds the key's last reference
      ownersLease?.release()  // forgets the key → its box → the attached lease → release
      finished.signal()
    }
    thread.start()
    let outcome = finished.wait(timeout: .now() + .seconds(5))
    #expect(outcome == .success, "deadlock: a lease released while the limiter's lock was held")
    if outcome == .success { #expect(limiter.count == 0) }
  }

  /// A custom clock that runs scheduled work inline (allowed when the deadline has passed) and whose time moves
  /// on every reading: a waiter with a maxWait still ends once (waitedTooLong), without deadlock.
  @Test(.timeLimit(.minutes(1))) func aClockThatRunsWorkInlineNeitherDeadlocksNorResumesTwice() async throws {
    let clock = InlineTickingClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 1, clock: clock)
    let held = try #require(limiter.tryAcquire(for: "k"))
    for _ in 0..<50 {
      await #expect(throws: RateLimiterError.waitedTooLong(maxWait: .nanoseconds(1))) {
        try await limiter.acquire(1, for: "k", within: .nanoseconds(1))
      }
    }
    #expect(limiter.inUse(for: "k") == 1 && limiter.count == 1)
    held.release()
    #expect(limiter.count == 0)
  }

  /// A clock that steps back (SPEC 4.2.x: "a clock that steps back moves every remembered instant back with it,
  /// waiters included"; RateLimitClock: "neither crashes nor waits for the clock to catch up"): a 1 s maxWait
  /// must not become an hour.
  @Test func aClockSteppingBackDoesNotStretchMaxWait() async throws {
    let clock = SetBackClock()
    let limiter = KeyedConcurrencyLimiter<String>(limit: 3, clock: clock)
    let held = try #require(limiter.tryAcquire(2, for: "k"))
    let task = await waiter(limiter, 2, within: .seconds(1), position: 1)
    clock.base.advance(to: .milliseconds(500))
    clock.goBack(by: .seconds(3_600))
    clock.base.advance(to: .seconds(2))
    // 2 s of real time have passed since it joined (0.5 s before the step counting as none at worst): it has
    // given up by now.
    #expect(!hasWaiter(limiter), "a 1 s maxWait still waits after 2 s: it waits for the clock to catch up")
    held.release()
    (try? await task.value)?.release()
  }

  // MARK: - Races on threads (bounded)

  /// Release, cancel, timers and update all at once on a real clock: every acquire ends exactly once (no lost
  /// or double resumption), holders never exceed the highest limit, and nothing is left at the end.
  @Test(.timeLimit(.minutes(1))) func releaseCancelTimerAndUpdateRaceOnThreads() async throws {
    let limiter = KeyedConcurrencyLimiter<Int>(limit: 3)
    let finished = CallCounter()
    let outcomes = Outcomes()
    let total = 600
    var tasks: [Task<Void, Never>] = []
    for index in 0..<total {
      tasks.append(
        Task.detached {
          let key = index % 3
          let permits = 1 + index % 3
          let maxWait: Duration? = index % 4 == 0 ? .microseconds(Int64(50 + index % 200)) : nil
          do {
            let lease = try await limiter.acquire(permits, for: key, within: maxWait)
            outcomes.enter(key, permits)
            await Task.yield()
            outcomes.leave(key, permits)
            if index % 5 == 0 { _ = consume lease } else { lease.release() }
          } catch is CancellationError {
            outcomes.count("cancelled")
          } catch RateLimiterError.waitedTooLong {
            outcomes.count("late")
          } catch RateLimiterError.exceedsCapacity {
            outcomes.count("capacity")
          } catch {
            outcomes.count("other")
          }
          finished.increment()
        })
    }
    let updater = Thread {
      for round in 0..<200 {
        limiter.update(limit: [3, 2, 4, 3][round % 4])
        usleep(50)
      }
      limiter.update(limit: 4)
    }
    updater.start()
    for (index, task) in tasks.enumerated() where index % 7 == 3 { task.cancel() }
    await waitUntil(seconds: 30) { finished.value == total }
    #expect(finished.value == total, "an acquire never ended: a continuation never resumed")
    #expect(outcomes.peak <= 4)
    #expect(outcomes.other == 0)
    await waitUntil(seconds: 5) { limiter.count == 0 }
    #expect(limiter.count == 0)
    #expect((0..<3).allSatisfy { limiter.inUse(for: $0) == 0 })
  }

  /// A waiter's timer and a release race at the deadline on the real clock, many times: the waiter either gets
  /// the lease or throws waitedTooLong, never both, and the one behind is served either way.
  @Test(.timeLimit(.minutes(1))) func timerAndReleaseRaceAtTheDeadline() async throws {
    for round in 0..<200 {
      let limiter = ConcurrencyLimiter(limit: 1)
      let held = try #require(limiter.tryAcquire())
      let racer = Task { try await limiter.acquire(within: .microseconds(200)) }
      let patient = Task { () -> Lease in
        // Joins after `racer` (best effort: a short pause).
        try await Task.sleep(for: .microseconds(50))
        return try await limiter.acquire()
      }
      usleep(UInt32(150 + round % 100))
      held.release()
      let racerResult = await racer.result
      switch racerResult {
      case .success(let lease): lease.release()
      case .failure(let error):
        #expect(error as? RateLimiterError == .waitedTooLong(maxWait: .microseconds(200)), "\(error)")
      }
      try await patient.value.release()
      #expect(limiter.inUse == 0)
    }
  }

  /// Threads releasing the same lease, and dropping it, at once: the permits come back exactly once.
  @Test func releaseFromManyThreadsAtOnceGivesBackOnce() throws {
    let limiter = KeyedConcurrencyLimiter<Int>(limit: 4)
    for _ in 0..<200 {
      let other = try #require(limiter.tryAcquire(2, for: 0))
      let lease = LockedBox<Lease?>(limiter.tryAcquire(2, for: 0))
      let shared = try #require(lease.get())
      onSeparateThreads(4) { thread in
        if thread == 3 { lease.set(nil) } else { shared.release() }
      }
      #expect(limiter.inUse(for: 0) == 2)
      other.release()
      #expect(limiter.count == 0)
    }
  }

  // MARK: - Preconditions naming the parameter and value

  #if os(macOS) || os(Linux) || os(Windows)
    func expect(_ result: ExitTest.Result?, says message: String) {
      let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(output.contains(message), "\(output)")
    }

    @Test func preconditionsOfTheOtherEntryPoints() async {
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          ConcurrencyLimiter(limit: 2).update(limit: -7)
        }, says: "ConcurrencyLimiter: limit must be at least 1, got limit: -7")
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          _ = try? await ConcurrencyLimiter(limit: 2).withLease(0) { 1 }
        }, says: "ConcurrencyLimiter: permits must be at least 1, got permits: 0")
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          _ = try? await KeyedConcurrencyLimiter<Int>(limit: 2).withLease(1, for: 3, within: .milliseconds(-5)) { 1 }
        }, says: "KeyedConcurrencyLimiter: maxWait must not be negative, got maxWait: -0.005 seconds")
      // Order: a negative maxWait traps before capacity is checked.
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          _ = try? await KeyedConcurrencyLimiter<Int>(limit: 2).acquire(9, for: 3, within: .seconds(-1))
        }, says: "maxWait must not be negative")
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          _ = KeyedConcurrencyLimiter<Int>(limit: 2).tryAcquire(-2, for: 1)
        }, says: "KeyedConcurrencyLimiter: permits must be at least 1, got permits: -2")
    }
  #endif
}

/// Whether `key` has a waiter in line now, probed without side effects: a request above the limit is refused
/// and reports `remaining` 0 while anyone waits (meaningful only while `inUse < limit`).
func hasWaiter(_ limiter: KeyedConcurrencyLimiter<String>, _ key: String = "k") -> Bool {
  limiter.decide(limiter.limit + 1, for: key).remaining == 0
}

/// The number of slots (waiters and holes) in `key`'s line, read through Mirror (the fields are private).
func lineSlotCount<Key: Hashable & Sendable>(_ lines: LeaseLines<Key>, key: Key) -> Int? {
  guard
    let keys = Mirror(reflecting: lines).children.first(where: { $0.label == "keys" })?.value as? [Key: LeaseKey<Key>],
    let record = keys[key]
  else { return nil }
  var mirror: Mirror? = Mirror(reflecting: record)
  while let current = mirror {
    if let line = current.children.first(where: { $0.label == "line" })?.value,
      let slots = Mirror(reflecting: line).children.first(where: { $0.label == "slots" })?.value as? [LeaseWaiter?]
    {
      return slots.count
    }
    mirror = current.superclassMirror
  }
  return nil
}

/// A key whose identity is its name, holding a class instance (to observe deallocation and to own things).
struct TrackedKey: Hashable, Sendable {
  final class Box: @unchecked Sendable {
    // @unchecked Sendable: test-only, touched by one thread at a time.
    let name: String
    var attached: Lease?
    init(name: String) { self.name = name }
  }
  let box: Box
  static func == (a: TrackedKey, b: TrackedKey) -> Bool { a.box.name == b.box.name }
  func hash(into hasher: inout Hasher) { hasher.combine(box.name) }
}

/// A value under a lock.
final class LockedBox<Value>: @unchecked Sendable {
  // @unchecked Sendable: `value` is only touched under `lock`.
  private let lock = Lock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  func get() -> Value { lock.withLock { value } }
  func set(_ newValue: Value) { lock.withLock { value = newValue } }
}

/// Counts outcomes and the permits held per key, and the peak.
final class Outcomes: @unchecked Sendable {
  // @unchecked Sendable: every field is only touched under `lock`.
  private let lock = Lock()
  private var held = [0, 0, 0]
  private var highest = 0
  private var counts: [String: Int] = [:]
  func enter(_ key: Int, _ permits: Int) {
    lock.withLock {
      held[key] += permits
      highest = max(highest, held[key])
    }
  }
  func leave(_ key: Int, _ permits: Int) { lock.withLock { held[key] -= permits } }
  func count(_ outcome: String) { lock.withLock { counts[outcome, default: 0] += 1 } }
  var peak: Int { lock.withLock { highest } }
  var other: Int { lock.withLock { counts["other", default: 0] } }
}

/// A ManualClock that counts readings of `now` and records the deadlines it is given.
final class RecordingClock: RateLimitClock, @unchecked Sendable {
  // @unchecked Sendable: the counters are only touched under `lock`.
  let base = ManualClock()
  private let lock = Lock()
  private var readCount = 0
  private var scheduled: [Duration] = []
  var now: Duration {
    lock.withLock { readCount += 1 }
    return base.now
  }
  var reads: Int { lock.withLock { readCount } }
  var deadlines: [Duration] { lock.withLock { scheduled } }
  func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    lock.withLock { scheduled.append(deadline) }
    base.schedule(at: deadline, on: queue, work)
  }
}

/// A clock whose time moves 1 ns on every reading and which runs work inline when its deadline has passed (as
/// the protocol allows), else on a queue after a short real delay.
final class InlineTickingClock: RateLimitClock, @unchecked Sendable {
  // @unchecked Sendable: `ticks` is only touched under `lock`.
  private let lock = Lock()
  private var ticks: Int64 = 0
  var now: Duration {
    lock.withLock {
      ticks += 1
      return .nanoseconds(ticks)
    }
  }
  func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    if now >= deadline {
      work()
    } else {
      queue.asyncAfter(deadline: .now() + .milliseconds(1)) { [self] in self.schedule(at: deadline, on: queue, work) }
    }
  }
}
