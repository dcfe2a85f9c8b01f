/// How a later call's value meets the one already held: `reducing(&held, value)`.
@usableFromInline
typealias Reducer<Value> = @Sendable (inout Value, Value) -> Void

/// The value a rule holds back, and how a later call's value joins it: it replaces it, or, with a reducer,
/// is combined into it in place (`reduce(&held, value)`, never a copy of the held value). The reducer is passed
/// in with each value rather than kept here: most limiters have none, and they do not pay 16 bytes for it.
///
/// The first value held after idle, a run, a flush or a cancel is held as it is.
@usableFromInline
struct HeldValue<Value: Sendable>: Sendable {
  /// What is held; `nil` when nothing is.
  @usableFromInline var value: Value?
  @usableFromInline
  init() {}

  /// Whether a value is held.
  @inlinable var isEmpty: Bool { value == nil }

  /// Holds `newValue`: as it is when nothing is held, else replacing the held value or combined into it.
  /// A value it replaces is moved to `displaced` rather than destroyed, so that the caller can let it go once
  /// its lock is released (a value's `deinit` may call back into the limiter).
  ///
  /// - Complexity: O(1), plus what `reduce` costs; combining works on the held value in place.
  @inlinable
  mutating func add(
    _ newValue: Value, reducing reduce: @autoclosure () -> Reducer<Value>?, displacing displaced: inout Value?
  ) {
    if value == nil {
      value = newValue
    } else if let reduce = reduce() {
      reduce(&value!, newValue)
    } else {
      displaced = value.take()
      value = newValue
    }
  }

  /// Takes the held value out, leaving nothing held.
  @inlinable
  mutating func take() -> Value? {
    defer { value = nil }
    return value
  }
}
