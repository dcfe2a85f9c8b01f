/// Traps with a message naming `parameter` and its `value` when `value` is negative.
///
/// Uses `fatalError` rather than `precondition` on purpose: `precondition` drops its message in optimized
/// builds, and the message is the whole point of this check.
func requireNonNegative(_ value: Duration, _ parameter: StaticString, of type: StaticString) {
  if value < .zero {
    fatalError("\(type): \(parameter) must not be negative, got \(parameter): \(value)")
  }
}
