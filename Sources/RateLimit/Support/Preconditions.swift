/// Traps with a message naming `parameter` and its `value` when `value` is negative.
///
/// Uses `fatalError` rather than `precondition` on purpose: `precondition` drops its message in optimized
/// builds, and the message is the whole point of this check.
package func requireNonNegative(_ value: Duration, _ parameter: StaticString, of type: StaticString) {
  if value < .zero {
    fatalError("\(type): \(parameter) must not be negative, got \(parameter): \(value)")
  }
}

/// Traps unless `value >= 1`, naming the parameter and value.
package func requirePositive(_ value: Int, _ parameter: StaticString, of type: StaticString) {
  if value < 1 { fatalError("\(type): \(parameter) must be at least 1, got \(parameter): \(value)") }
}

/// The checks of a permit rule's parameters, written once for every limiter of permits (`RateLimiter`,
/// `KeyedRateLimiter`, `PostgresRateLimiter`): `limit` and `burst` (when given) at least 1, `window` not
/// negative; a trap names the type, the parameter and its value.
package func requirePermitParameters(limit: Int, window: Duration, burst: Int?, of type: StaticString) {
  requirePositive(limit, "limit", of: type)
  requireNonNegative(window, "window", of: type)
  if let burst { requirePositive(burst, "burst", of: type) }
}

/// Traps unless `value >= 0`, naming the parameter and value (`charge`, `refund`).
package func requireNonNegative(_ value: Int, _ parameter: StaticString, of type: StaticString) {
  if value < 0 { fatalError("\(type): \(parameter) must not be negative, got \(parameter): \(value)") }
}
