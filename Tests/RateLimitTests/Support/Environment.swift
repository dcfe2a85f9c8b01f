#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Settings a developer can give the test run through the environment, to replay a seed or run longer.
enum TestEnvironment {
  /// The value of the environment variable `name`, if it is set and not empty.
  static func string(_ name: String) -> String? {
    guard let value = getenv(name), value.pointee != 0 else { return nil }
    return String(cString: value)
  }

  /// `name` read as an unsigned integer; `nil` if unset. A value that is not a number is a mistake worth
  /// stopping for, not a default.
  static func integer(_ name: String) -> UInt64? {
    guard let text = string(name) else { return nil }
    guard let value = UInt64(text) else { fatalError("\(name) must be a non-negative integer, got \"\(text)\"") }
    return value
  }
}
