import RateLimit
import Testing

@testable import RateLimitHTTP

/// The in-process grant's `RateLimit` value, written byte by byte, is what the general path appends: edges of
/// both numbers, then random ones.
@Suite struct StateValueTests {
  static func decision(remaining: Int, resetAfter: Duration) -> RateLimitDecision {
    RateLimitDecision(
      isGranted: true, limit: 10, window: .seconds(10), remaining: remaining, resetAfter: resetAfter,
      retryAfter: nil)
  }

  @Test func writesWhatAppendStateDoes() {
    var generator = SystemRandomNumberGenerator()
    let remainings =
      [0, -1, 1, 9, 10, 99, 100, .max, .min] + (0..<2_000).map { _ in Int.random(in: 0...Int.max, using: &generator) }
    let resets: [Duration] =
      [.zero, .nanoseconds(1), .seconds(9), .seconds(10), .seconds(Int64.max), .seconds(-1)]
      + (0..<2_000).map { _ in .nanoseconds(Int64.random(in: 0...Int64.max, using: &generator)) }
    for (index, remaining) in remainings.enumerated() {
      let reset = resets[index % resets.count]
      for quoted in [#""api""#, #""a\"b""#, #""""#] {
        var expected = ""
        RateLimitFields.appendState(
          quoted, Self.decision(remaining: remaining, resetAfter: reset), separated: false, to: &expected)
        #expect(RateLimitFields.stateValue(quoted, Self.decision(remaining: remaining, resetAfter: reset)) == expected)
      }
    }
    #expect(
      RateLimitFields.stateValue(#""api""#, Self.decision(remaining: 7, resetAfter: .milliseconds(3_001)))
        == #""api";r=7;t=4"#)
  }
}
