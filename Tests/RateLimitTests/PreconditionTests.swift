import Dispatch
import RateLimit
import Testing

#if os(macOS) || os(Linux) || os(Windows)
  /// Bad input traps with a message that names the parameter and the value; each case runs in its own process.
  @Suite struct PreconditionTests {
    @Test func negativeThrottlerIntervalTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = Throttler<Int>(interval: .seconds(-1), queue: .main) { _ in }
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("interval: -1.0 seconds"), "\(message)")
    }

    @Test func negativeDebouncerIntervalTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = Debouncer<Int>(interval: .milliseconds(-5), queue: .main) { _ in }
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("interval: -0.005 seconds"), "\(message)")
    }

    @Test func negativeMaxWaitTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = Debouncer<Int>(interval: .seconds(1), maxWait: .seconds(-2), queue: .main) { _ in }
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("maxWait: -2.0 seconds"), "\(message)")
    }

    @Test func negativeIntervalOfTheMainActorInitializerTraps() async {
      await #expect(processExitsWith: .failure) {
        _ = await MainActor.run { Throttler(interval: .seconds(-1), mode: .trailing) {} }
      }
    }

    @Test func zeroAndMaxWaitBelowIntervalDoNotTrap() {
      _ = Throttler<Int>(interval: .zero, queue: .main) { _ in }
      _ = Debouncer<Int>(interval: .seconds(2), maxWait: .zero, queue: .main) { _ in }
      _ = Debouncer<Int>(interval: .zero, maxWait: .zero, queue: .main) { _ in }
    }

    @Test func manualClockRefusesToGoBack() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        ManualClock().advance(by: .seconds(-1))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("duration: -1.0 seconds"), "\(message)")

      await #expect(processExitsWith: .failure) {
        let clock = ManualClock()
        clock.advance(to: .seconds(2))
        clock.advance(to: .seconds(1))
      }
    }

    @Test func manualClockRunStopsWorkThatReschedulesItselfForever() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        let clock = ManualClock()
        @Sendable func again() { clock.schedule(at: clock.now + .seconds(1), on: .main, again) }
        again()
        clock.run()
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("re-schedules itself forever"), "\(message)")
    }

    /// The permit limiters: `limit`, `burst`, `permits` below 1, a negative `window` or `maxDelay`; each message
    /// names the parameter and the value.
    @Test(arguments: [
      ("limit: 0", 0), ("burst: -1", 1), ("window: -1.0 seconds", 2), ("permits: 0", 3), ("maxDelay: -2.0 seconds", 4),
      ("permits: -3", 5), ("limit: -7", 6),
    ])
    func permitLimiterPreconditionsTrap(_ expected: String, _ scenario: Int) async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [scenario] in
        switch scenario {
        case 0: _ = RateLimiter(limit: 0, per: .seconds(1))
        case 1: _ = RateLimiter(limit: 1, per: .seconds(1), burst: -1)
        case 2: _ = RateLimiter(limit: 1, per: .seconds(-1))
        case 3: _ = RateLimiter(limit: 1, per: .seconds(1)).tryAcquire(0)
        case 4: _ = RateLimiter(limit: 1, per: .seconds(1)).reserve(within: .seconds(-2))
        case 5: _ = KeyedRateLimiter<String>(limit: 1, per: .seconds(1)).tryAcquire(-3, for: "a")
        default: _ = KeyedRateLimiter<String>(limit: -7, per: .seconds(1), burst: 1)
        }
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains(expected), "\(message)")
    }
  }
#endif

#if os(macOS) || os(Linux) || os(Windows)
  /// The sequences take the closure objects' preconditions (SPEC 4.3), checked where the sequence is made.
  @Suite struct SequencePreconditionTests {
    @Test func aNegativeIntervalOfDebouncedTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = AsyncStream<Int> { $0.finish() }.debounced(for: .seconds(-3))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("debounced: interval must not be negative, got interval: -3.0 seconds"), "\(message)")
    }

    @Test func aNegativeMaxWaitOfDebouncedTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = AsyncStream<Int> { $0.finish() }.debounced(for: .seconds(1), maxWait: .seconds(-2))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("maxWait: -2.0 seconds"), "\(message)")
    }

    @Test func aNegativeIntervalOfThrottledTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = AsyncStream<Int> { $0.finish() }.throttled(for: .milliseconds(-1))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("throttled: interval must not be negative, got interval: -0.001 seconds"), "\(message)")
    }
  }
#endif

#if os(macOS) || os(Linux) || os(Windows)
  @Suite struct BlockPreconditionTests {
    @Test func aNegativeBlockTraps() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        RateLimiter(limit: 1, per: .seconds(1)).block(for: .seconds(-4))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("RateLimiter: duration must not be negative, got duration: -4.0 seconds"), "\(message)")
    }
  }
#endif
