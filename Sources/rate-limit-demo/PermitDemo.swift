import Dispatch
import RateLimit

/// A burst of 12 requests through 5 per second, with both `RateLimiter` algorithms, on the real clock: when each
/// request was granted.
enum PermitDemo {
  /// Sends 12 requests at once through `limiter`; returns each one's grant time, in ms since the burst.
  static func burst(through limiter: RateLimiter) async -> [Int] {
    let start = DispatchTime.now().uptimeNanoseconds
    return await withTaskGroup(of: (Int, Int).self) { group in
      for request in 0..<12 {
        // Booked in order: each request books before the next task is created.
        let booking = limiter.reserve()
        group.addTask {
          if let booking {
            try? await Task.sleep(for: booking.delay)
          }
          return (request, Int((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000))
        }
      }
      var granted = [Int](repeating: 0, count: 12)
      for await (request, milliseconds) in group { granted[request] = milliseconds }
      return granted
    }
  }

  static func run() async {
    print(
      """

      Rate limits: 12 requests at once through 5 per second; when each was granted (ms after the burst).
      """)
    let window = await burst(through: RateLimiter(limit: 5, per: .seconds(1)))
    print("  sliding window       " + window.map { String($0) }.joined(separator: " "))
    let bucket = await burst(through: RateLimiter(limit: 5, per: .seconds(1), burst: 5))
    print("  token bucket, B = 5  " + bucket.map { String($0) }.joined(separator: " "))
    print(
      """
        The window grants 5, then 5 more a second later, then 2: never more than 5 in any second. The bucket
        grants its 5, then one every 200 ms: up to 9 in the first second.
      """)
  }
}
