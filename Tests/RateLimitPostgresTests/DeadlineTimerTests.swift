#if Postgres
  import RateLimit
  @testable import RateLimitPostgres
  import Testing

  /// A limiter's deadlines share one timer (`DeadlineTimer`): each entry fires once, at or after its instant, in
  /// the order of their instants; a cancelled one never; the sleeping task ends when none is left.
  @Suite struct DeadlineTimerTests {
    @Test func entriesFireInOrderOnceAndCancelledOnesNever() async {
      let timer = DeadlineTimer()
      let start = ContinuousClock.now
      let fired = LockedValue<[(Int, ContinuousClock.Instant)]>([])
      @Sendable func record(_ index: Int) { fired.withLock { $0.append((index, .now)) } }
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        _ = timer.schedule(at: start + .milliseconds(40)) {
          record(4)
          done.resume()
        }
        _ = timer.schedule(at: start + .milliseconds(20)) { record(2) }
        let cancelled = timer.schedule(at: start + .milliseconds(30)) { record(3) }
        // Each entry earlier than the instant the timer sleeps until starts a sleeper in its place (the 20 ms and
        // the 10 ms ones: three in all); the 30 ms one does not.
        _ = timer.schedule(at: start + .milliseconds(10)) { record(1) }
        timer.cancel(cancelled)
        #expect(timer.counts.entries == 3 && timer.counts.sleeping && timer.counts.started == 3)
      }
      let order = fired.withLock { $0 }
      #expect(order.map(\.0) == [1, 2, 4])
      for (index, at) in order { #expect(at >= start + .milliseconds(10 * index), "entry \(index)") }
      #expect(timer.counts.entries == 0 && !timer.counts.sleeping)
    }

    /// Entries added in order, as a limiter's decisions add them, start no task after the first: one sleeper
    /// fires them all.
    @Test func entriesInOrderShareOneSleeper() async {
      let timer = DeadlineTimer()
      let start = ContinuousClock.now
      let count = LockedValue(0)
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        for index in 1...100 {
          _ = timer.schedule(at: start + .milliseconds(20) + .microseconds(100 * index)) {
            if count.withLock({ count in
              count += 1
              return count
            }) == 100 {
              done.resume()
            }
          }
        }
      }
      #expect(count.withLock { $0 } == 100)
      #expect(timer.counts.entries == 0 && !timer.counts.sleeping && timer.counts.started == 1)
    }
  }
#endif
