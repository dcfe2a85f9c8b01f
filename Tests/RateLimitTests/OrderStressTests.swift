import Dispatch
import Foundation
import Testing

@testable import RateLimit

/// Several threads calling one limiter on the real clock, every mode, intervals from zero to a few
/// milliseconds, with an action slow enough to keep its queue busy. Counts runs that reach the action out of
/// decision order (a thread's values must arrive in the order that thread called them) and trailing modes whose
/// last run is not the last call's value. Both must be 0. CI runs this suite under ThreadSanitizer too.
@Suite struct OrderStressTests {
  struct Config: Sendable, CustomTestStringConvertible {
    let kind: LimiterKind
    let interval: Duration
    let threads: Int
    var maxWait: Duration? = nil
    var testDescription: String {
      "\(kind.rawValue) T=\(interval) \(threads) threads" + (maxWait.map { " maxWait \($0)" } ?? "")
    }
    var keepsTheLastValue: Bool { kind == .throttleTrailing || kind == .firstPerDuration || kind == .debounceTrailing }
  }

  static let callsPerThread = TestEnvironment.integer("RATELIMIT_STRESS_CALLS").map(Int.init) ?? 3_000

  static let configs: [Config] =
    LimiterKind.allCases.flatMap { kind in
      [Duration.zero, .microseconds(100), .milliseconds(2)].flatMap { interval in
        [2, 4].map { Config(kind: kind, interval: interval, threads: $0) }
      }
    } + [
      Config(kind: .debounceTrailing, interval: .microseconds(200), threads: 3, maxWait: .microseconds(500)),
      Config(kind: .debounceLeading, interval: .microseconds(200), threads: 3, maxWait: .microseconds(500)),
    ]

  /// A value that says which thread called it, and its place in that thread's calls.
  static func value(thread: Int, sequence: Int) -> Int { thread * 10_000_000 + sequence }

  @Test(arguments: configs)
  func runsArriveInDecisionOrderAndEndOnTheLastValue(_ config: Config) async {
    let queue = DispatchQueue(label: "OrderStressTests")
    let recorder = Recorder<Int>()
    let limiter = makeLimiter(
      config.kind, interval: config.interval, maxWait: config.maxWait, queue: queue, clock: .dispatch
    ) { (value: Int) in
      recorder.record(value)
      if value % 7 == 0 { usleep(20) }  // a busy queue: timers and deliveries pile up behind the action
    }
    onSeparateThreads(config.threads) { thread in
      for sequence in 1...Self.callsPerThread {
        limiter.call(Self.value(thread: thread, sequence: sequence))
        if sequence % 64 == 0 { usleep(30) }  // let timers fire mid-stream
      }
    }
    let last = Self.value(thread: 99, sequence: 1)
    limiter.call(last)
    await waitUntil(seconds: 20) { !limiter.isPending }
    queue.sync {}

    let values = recorder.values
    var latest: [Int: Int] = [:]
    var outOfOrder = 0
    for value in values {
      let (thread, sequence) = value.quotientAndRemainder(dividingBy: 10_000_000)
      if let previous = latest[thread], previous >= sequence { outOfOrder += 1 }
      latest[thread] = sequence
    }
    let stale = config.keepsTheLastValue && values.last != last ? 1 : 0
    let calls = config.threads * Self.callsPerThread + 1
    print(
      "OrderStressTests: \(config.testDescription): \(calls) calls, \(values.count) runs, "
        + "\(outOfOrder) out of order, \(stale) stale")
    #expect(outOfOrder == 0, "runs out of decision order")
    #expect(stale == 0, "the last run is not the last call's value: \(values.suffix(3))")
    limiter.invalidate()
  }
}
