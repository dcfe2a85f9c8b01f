import Dispatch
import Foundation
import Testing

@testable import RateLimit

/// A value whose `deinit` calls back into the limiter that held it.
final class Reentrant: Sendable {
  let onDeinit: @Sendable () -> Void
  init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
  deinit { onDeinit() }
}

/// Runs `body` on a thread of its own and waits at most `seconds` for it: a deadlock fails the test instead of
/// hanging the suite (the stuck thread is left behind).
func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
  let done = DispatchSemaphore(value: 0)
  Thread {
    body()
    done.signal()
  }.start()
  return done.wait(timeout: .now() + seconds) == .success
}

/// SPEC 3.0, "Robustness at the edges" (issue 19).
@Suite struct RobustnessTests {
  /// 1. Values are released outside the lock: a value whose `deinit` calls the same limiter neither deadlocks nor
  /// crashes. Seven scenarios; each saw a deadlock on 2.0.
  @Test(arguments: 0..<7)
  func aValueWhoseDeinitCallsItsLimiter(_ scenario: Int) async {
    let clock = ManualClock()
    let box = WeakBox<AnyObject>()
    @Sendable func reentrant() -> Reentrant {
      Reentrant { _ = (box.object as? any Limiting<Reentrant>)?.isPending }
    }
    let gate = Gate<Int>(noticesCancellation: false)
    let limiter: any Limiting<Reentrant> =
      scenario < 3
      ? Debouncer<Reentrant>(interval: .seconds(1), queue: .main, clock: clock) { _ in }
      : Throttler<Reentrant>(interval: .zero, overlap: .waitForPrevious, clock: clock) { _ in await gate.run(0) }
    box.object = limiter
    if scenario >= 3 {
      limiter.call(reentrant())  // runs, and waits at the gate
      await gate.arrival(of: 1)
    }
    // Scenario 6 only: a task awaiting waitUntilIdle(). (Elsewhere it would block a thread on a deadlocked lock.)
    let waiting = scenario == 6 ? Task { await limiter.waitUntilIdle() } : nil
    if scenario == 6 {
      // The waiter must be registered before the value that cancels it goes away.
      let engine = (limiter as! Throttler<Reentrant>).engine
      await waitUntil(seconds: 5) { engine.withState { $0.pointee.extras?.idleWaiters.count } == 1 }
    }
    let ok = finishes(within: 5) {
      switch scenario {
      case 0:  // a held value replaced by a newer one
        limiter.call(reentrant())
        limiter.call(reentrant())
      case 1:  // a held value dropped by cancel()
        limiter.call(reentrant())
        limiter.cancel()
      case 2:  // a held value dropped by invalidate()
        limiter.call(reentrant())
        limiter.invalidate()
      case 3:  // an async waiting value replaced by a newer one
        limiter.call(reentrant())
        limiter.call(reentrant())
      case 4:  // a waiting value dropped by cancel()
        limiter.call(reentrant())
        limiter.cancel()
      case 5:  // a waiting value dropped by invalidate()
        limiter.call(reentrant())
        limiter.invalidate()
      default:  // a value whose deinit cancels a task awaiting the limiter's waitUntilIdle()
        // No local holds it: the limiter's is the last reference.
        limiter.call(Reentrant { waiting?.cancel() })
        limiter.call(reentrant())  // replaces it: its deinit cancels the waiter
      }
    }
    #expect(ok, "deadlocked")
    // A deadlocked limiter cannot be cleaned up: its lock is held for ever.
    if ok && scenario >= 3 {
      gate.open(0)
      gate.open(1)
      gate.open(2)
      await limiter.waitUntilIdle()
    }
  }

  @TaskLocal static var requestID: String?

  /// 2. A run inherits nothing from whoever started it: no task-local values, the default priority, whether it
  /// starts at once inside a call, from a timer, or after waiting behind another run.
  @Test func aRunInheritsNeitherTaskLocalsNorPriority() async {
    let clock = ManualClock()
    let seen = Recorder<String>()
    let gate = Gate<Int>(noticesCancellation: false)
    let defaultPriority = await Task.detached { Task.currentPriority }.value
    let limiter = Throttler<Int>(
      interval: .seconds(1), mode: .firstPerDuration, overlap: .waitForPrevious, clock: clock
    ) { value in
      seen.record("\(value): \(Self.requestID ?? "none") \(Task.currentPriority == defaultPriority)")
      await gate.run(value)
    }
    await Task(priority: .high) {
      Self.$requestID.withValue("A") { limiter(1) }  // at once, inside the call
    }.value
    await gate.arrival(of: 1)
    await Task(priority: .high) {
      Self.$requestID.withValue("B") { limiter(2) }  // held; due by a timer at 1 s
    }.value
    clock.advance(by: .seconds(1))  // 2 is due and waits behind 1
    gate.open(0)  // 2 starts from the task of 1
    await gate.arrival(of: 2)
    await Task(priority: .background) {
      Self.$requestID.withValue("C") { limiter(3) }  // held; its timer fires at 2 s
    }.value
    clock.advance(by: .seconds(1))
    gate.open(1)
    await gate.arrival(of: 3)
    gate.open(2)
    await limiter.waitUntilIdle()
    #expect(seen.values == ["1: none true", "2: none true", "3: none true"])
  }

  /// 3. A clock whose `schedule` runs work before returning never makes the action run inside `call` (nor on the
  /// calling thread's stack): with a zero interval and an action that calls its own limiter 10,000 times, 2.0
  /// overflowed the stack.
  @Test func aClockThatRunsWorkInlineNeverRunsTheActionInsideCall() async {
    let queue = DispatchQueue(label: "RobustnessTests.inline")
    let clock = InlineClock()
    let inCall = Flag()
    let ranInsideCall = Flag()
    let count = Tally()
    let box = WeakBox<Throttler<Int>>()
    let caller = ThreadIdentity.current
    let limiter = Throttler<Int>(interval: .zero, queue: queue, clock: clock) { value in
      // Inside `call` means: on the calling thread, while `call` has not returned.
      if inCall.isSet && ThreadIdentity.current == caller { ranInsideCall.set() }
      count.add()
      if value < 10_000 { box.object?.call(value + 1) }
    }
    box.object = limiter
    inCall.set()
    limiter(1)
    inCall.clear()
    await waitUntil(seconds: 20) { count.value == 10_000 }
    queue.sync {}
    #expect(count.value == 10_000)
    #expect(!ranInsideCall.isSet)
    // Order still holds: a trailing throttler on the same clock ends on the last value.
    let recorder = Recorder<Int>()
    let trailing = Debouncer<Int>(interval: .zero, queue: queue, clock: clock) { recorder.record($0) }
    for value in 1...100 { trailing(value) }
    queue.sync {}
    #expect(recorder.values == Array(1...100))
  }
}

/// A clock that runs work due now inside `schedule`, as the protocol allows ("at once if it already has").
final class InlineClock: RateLimitClock, @unchecked Sendable {
  // @unchecked Sendable: stateless but for the real clock it reads.
  var now: Duration { DispatchClock().now }
  func schedule(at deadline: Duration, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
    if deadline <= now { work() } else { DispatchClock().schedule(at: deadline, on: queue, work) }
  }
}

/// A thread-safe flag.
final class Flag: @unchecked Sendable {
  // @unchecked Sendable: `value` is only touched inside `lock.withLock`.
  private let lock = Lock()
  private var value = false
  func set() { lock.withLock { value = true } }
  func clear() { lock.withLock { value = false } }
  var isSet: Bool { lock.withLock { value } }
}

/// Which thread this is, comparable across threads.
struct ThreadIdentity: Equatable, Sendable {
  // A number, not the pthread_t itself (a pointer on Apple platforms): only ever compared.
  let id: UInt

  static var current: ThreadIdentity {
    #if canImport(Darwin)
      ThreadIdentity(id: UInt(bitPattern: pthread_self()))
    #else
      ThreadIdentity(id: UInt(pthread_self()))
    #endif
  }
}
