@testable import RateLimit

/// Starts `acquire` in a task and returns once it waits in `key`'s line, the `position`-th: the lease tests act
/// only once a waiter is known to be in the line, without polling.
func waiter(
  _ limiter: KeyedConcurrencyLimiter<String>, _ permits: Int = 1, for key: String = "k", within: Duration? = nil,
  position: Int
) async -> Task<Lease, any Error> {
  let task = Task { try await limiter.acquire(permits, for: key, within: within) }
  await limiter.lines.waitUntilWaiting(atLeast: position, for: key)
  return task
}
