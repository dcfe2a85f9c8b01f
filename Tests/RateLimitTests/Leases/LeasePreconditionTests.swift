import RateLimit
import Testing

#if os(macOS) || os(Linux) || os(Windows)
  /// SPEC 4.4: `limit` and `permits` below 1, and a negative `maxWait`, are precondition failures naming the
  /// parameter and value.
  @Suite struct LeasePreconditionTests {
    func expect(_ result: ExitTest.Result?, says message: String) {
      let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(output.contains(message), "\(output)")
    }

    @Test func aLimitBelowOneTraps() async {
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          _ = ConcurrencyLimiter(limit: 0)
        }, says: "ConcurrencyLimiter: limit must be at least 1, got limit: 0")
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          _ = KeyedConcurrencyLimiter<String>(limit: -3)
        }, says: "KeyedConcurrencyLimiter: limit must be at least 1, got limit: -3")
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          KeyedConcurrencyLimiter<String>(limit: 2).update(limit: 0)
        }, says: "KeyedConcurrencyLimiter: limit must be at least 1, got limit: 0")
    }

    @Test func permitsBelowOneTrap() async {
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          _ = ConcurrencyLimiter(limit: 2).tryAcquire(0)
        }, says: "ConcurrencyLimiter: permits must be at least 1, got permits: 0")
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          _ = try? await KeyedConcurrencyLimiter<String>(limit: 2).acquire(-1, for: "k")
        }, says: "KeyedConcurrencyLimiter: permits must be at least 1, got permits: -1")
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          _ = KeyedConcurrencyLimiter<String>(limit: 2).decide(0, for: "k")
        }, says: "KeyedConcurrencyLimiter: permits must be at least 1, got permits: 0")
    }

    @Test func aNegativeMaxWaitTraps() async {
      expect(
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
          _ = try? await ConcurrencyLimiter(limit: 2).acquire(within: .seconds(-1))
        }, says: "ConcurrencyLimiter: maxWait must not be negative, got maxWait: -1.0 seconds")
    }
  }
#endif
