/// Operating the limit (SPEC 4.2): read what is left, charge a cost known only afterwards, refund, reset, block.
/// Each is one lock and one clock read.
///
/// ```swift
/// // An LLM gateway: take an estimate before the call,
/// // settle with the tokens really used.
/// let tokens = RateLimiter(
///   limit: 100_000, per: .seconds(60))
/// try await tokens.acquire(estimate)
/// let used = try await model.complete(prompt)
/// if used > estimate {
///   tokens.charge(used - estimate)
/// } else {
///   tokens.refund(estimate - used)
/// }
/// ```
extension RateLimiter {
  /// What ``decide(_:)`` would answer now, taking nothing and changing nothing (a `decide` right after it answers
  /// the same). Like `decide` it asks for `permits` (at least 1), so its `remaining` is what would be left
  /// *after* such a grant: a fresh limiter of 5 per minute peeks `remaining` 4.
  public func peek(_ permits: Int = 1) -> RateLimitDecision {
    door.check(permits)
    return door.report(
      core.operate {
        $0.peek(permits)
      } bucket: {
        $0.peek(permits)
      })
  }

  /// Takes `permits` now whatever the limit (a cost known only afterwards): the limiter may go past its limit,
  /// into debt, and later requests wait until the rule has paid it (a bucket refills at its usual rate; a window
  /// counts the permits until they leave it). Taken at now, behind no one and ahead of no one: bookings ahead
  /// keep their instants.
  ///
  /// - Parameter permits: 0 or more (0 changes nothing; negative traps, naming the value); above the capacity
  ///   too.
  /// - Returns: The limiter after the charge, as `decide` reports a grant (`isGranted` true, no `retryAfter`).
  @discardableResult
  public func charge(_ permits: Int) -> RateLimitDecision {
    requireNonNegative(permits, "permits", of: "RateLimiter")
    return door.report(
      core.operate {
        $0.charge(permits)
      } bucket: {
        $0.charge(permits)
      })
  }

  /// Gives back up to `permits` of what was taken up to now, the latest first: never more than was taken, never
  /// a booking ahead (a bucket: never above a full bucket less the permits booked ahead).
  ///
  /// - Parameter permits: 0 or more (0 changes nothing; negative traps, naming the value).
  /// - Returns: The limiter after the refund, as `decide` reports a grant.
  @discardableResult
  public func refund(_ permits: Int) -> RateLimitDecision {
    requireNonNegative(permits, "permits", of: "RateLimiter")
    return door.report(
      core.operate {
        $0.refund(permits)
      } bucket: {
        $0.refund(permits)
      })
  }

  /// Forgets everything taken up to now, any debt and any block: as if never used. Bookings ahead (waiting
  /// `acquire`s, reservations for later instants) stay, and count; a reservation whose booking was forgotten
  /// gives nothing back when cancelled.
  public func reset() {
    core.operate {
      $0.reset()
    } bucket: {
      $0.reset()
    }
  }

  /// Refuses everything from now until `duration` from now (that instant excluded), whatever the quota: a
  /// server said to wait (`Retry-After`), or the key misbehaved. A later block may extend it; one that ends no
  /// later than the current one changes nothing, and `.zero` changes nothing at all.
  ///
  /// While blocked, ``tryAcquire(_:)`` is `false`; ``decide(_:)`` is refused with `remaining` 0 and a
  /// `retryAfter` no earlier than the block's end; ``reserve(_:within:)`` and ``acquire(_:within:)`` book as
  /// the same request made at the block's end would (behind the bookings ahead, within `maxDelay` as usual);
  /// bookings made before the block keep their instants. Works on every limiter, one with a zero window too.
  ///
  /// An API client that follows the server's quota (RateLimitHTTP's `ServerQuota`):
  ///
  /// ```swift
  /// let api = RateLimiter(limit: 5_000, per: .seconds(3_600))
  /// try await api.acquire()
  /// let (status, fields) = try await send(request)
  /// api.block(for: ServerQuota(status: status, fields: fields).wait)
  /// ```
  ///
  /// - Parameter duration: How long from now; must not be negative (a trap names the value). A huge one
  ///   saturates at the 292-year horizon.
  /// - Complexity: O(1): one lock, one clock read.
  public func block(for duration: Duration) {
    requireNonNegative(duration, "duration", of: "RateLimiter")
    core.operate {
      $0.block(for: duration)
    } bucket: {
      $0.block(for: duration)
    }
  }
}

extension RateLimiter.Core {
  /// Runs `window` or `bucket` on the core, each specialized for its rule.
  func operate<Result>(
    _ window: (PermitCore<SlidingWindow<BookingLog>>) -> Result, bucket: (PermitCore<TokenBucket>) -> Result
  ) -> Result {
    switch self {
    case .window(let core): window(core)
    case .bucket(let core): bucket(core)
    }
  }
}
