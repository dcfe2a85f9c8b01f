import Dispatch
import RateLimitDiagrams
import RateLimitStoreKit
import Testing

@testable import RateLimit

/// `debounced` and `throttled` (SPEC 4.3): the values, order and instants of the matching closure object, on the
/// same ``ManualClock``, for every diagram of the docs and for random timelines of every mode; a busy consumer,
/// the end, an error, cancellation and two iterations.
@Suite struct AsyncSequenceTests {
  /// One timeline: a limiter's settings and its calls, in ticks of one second.
  struct Timeline: CustomTestStringConvertible {
    var limiter: Scenario.Limiter
    var interval: Int
    var maxWait: Int?
    var reducing: Bool
    var calls: [(tick: Int, value: String)]
    var ticks: Int
    var testDescription: String {
      "\(limiter) T=\(interval) maxWait=\(maxWait.map(String.init) ?? "-") reducing=\(reducing) "
        + calls.map { "\($0.value)@\($0.tick)" }.joined(separator: " ")
    }
  }

  /// Plays `timeline` through the sequence and through the closure object on one clock, tick by tick, waiting
  /// at each step until the consumer has what the closure object's action ran; returns both, as (tick, value).
  static func play(_ timeline: Timeline) async throws -> (sequence: [String], closure: [String]) {
    let clock = ManualClock()
    let base = FedSequence<String>()
    let concatenate: @Sendable (inout String, String) -> Void = { $0 += $1 }
    let reducer = timeline.reducing ? concatenate : nil
    let interval = Duration.seconds(timeline.interval)
    let closureRuns = Recorder<String>()
    let action: @Sendable (String) -> Void = { closureRuns.record($0, at: clock.now) }
    let queue = DispatchQueue(label: "closure")
    let closure: any ActionLimiter<String>
    let sequenceRuns = Recorder<String>()
    let received = CountWaiter()
    let consumer: Task<Void, any Error>
    switch timeline.limiter {
    case .debouncer(let mode):
      let maxWait = timeline.maxWait.map { Duration.seconds($0) }
      closure = Debouncer<String>(
        interval: interval, mode: mode, maxWait: maxWait, queue: queue, clock: clock, reducing: reducer,
        action: action)
      let sequence = base.debounced(for: interval, mode: mode, maxWait: maxWait, clock: clock, reducing: reducer)
      consumer = Task {
        for try await value in sequence {
          sequenceRuns.record(value, at: clock.now)
          received.increment()
        }
      }
    case .throttler(let mode):
      closure = Throttler<String>(
        interval: interval, mode: mode, queue: queue, clock: clock, reducing: reducer, action: action)
      let sequence = base.throttled(for: interval, mode: mode, clock: clock, reducing: reducer)
      consumer = Task {
        for try await value in sequence {
          sequenceRuns.record(value, at: clock.now)
          received.increment()
        }
      }
    }
    // The reader starts at the consumer's first `next()`, and asks for the first element.
    await base.waitUntilAsked(1)
    var sent = 0
    for tick in 0..<timeline.ticks {
      clock.advance(to: .seconds(tick))
      await received.wait(until: closureRuns.count)
      for call in timeline.calls where call.tick == tick {
        base.send(call.value)
        sent += 1
        await base.waitUntilAsked(sent + 1)
        closure.call(call.value)
        clock.advance(by: .zero)
        await received.wait(until: closureRuns.count)
      }
    }
    base.finish()
    closure.finish()
    clock.advance(by: .zero)
    try await consumer.value
    func format(_ runs: [(time: Duration, value: String)]) -> [String] {
      runs.map { "\($0.value)@\($0.time.components.seconds)" }
    }
    return (format(sequenceRuns.runs), format(closureRuns.runs))
  }

  /// Every synchronous row of every diagram the docs show.
  static var diagramTimelines: [Timeline] {
    Scenario.all.flatMap { scenario in
      scenario.rows.filter { $0.overlap == nil }.map { row in
        Timeline(
          limiter: row.limiter, interval: scenario.interval, maxWait: row.maxWait, reducing: row.reducing,
          calls: scenario.calls.map { ($0.tick, $0.letter) }, ticks: scenario.ticks)
      }
    }
  }

  @Test(arguments: diagramTimelines)
  func everyDiagramOfTheDocsIsTheClosureObjects(_ timeline: Timeline) async throws {
    let (sequence, closure) = try await Self.play(timeline)
    #expect(!closure.isEmpty)
    #expect(sequence == closure)
  }

  /// Random timelines of every mode, `maxWait` and `reducing`, dwelling on the boundaries (gaps of 0, T − 1, T,
  /// T + 1).
  @Test func randomTimelinesOfEveryModeAreTheClosureObjects() async throws {
    var random = SeededGenerator(seed: 43)
    let limiters: [Scenario.Limiter] = [
      .throttler(.leading), .throttler(.trailing), .throttler(.firstPerDuration), .debouncer(.leading),
      .debouncer(.trailing),
    ]
    var runs = 0
    for index in 0..<150 {
      let interval = [0, 1, 2, 3, 5].randomElement(using: &random)!
      let limiter = limiters[index % limiters.count]
      var maxWait: Int?
      if case .debouncer = limiter, Bool.random(using: &random) {
        maxWait = [0, interval, interval + 1, 2 * interval + 1].randomElement(using: &random)!
      }
      var tick = 0
      var calls: [(tick: Int, value: String)] = []
      for call in 0..<Int.random(in: 1...25, using: &random) {
        tick += [0, 1, max(0, interval - 1), interval, interval + 1, 2 * interval + 1].randomElement(using: &random)!
        calls.append((tick, String(UnicodeScalar(UInt8(97 + call % 26)))))
      }
      let timeline = Timeline(
        limiter: limiter, interval: interval, maxWait: maxWait, reducing: Bool.random(using: &random),
        calls: calls, ticks: tick + Int.random(in: 0...(2 * interval + 2), using: &random))
      let (sequence, closure) = try await Self.play(timeline)
      #expect(sequence == closure, "\(timeline.testDescription)")
      runs += closure.count
    }
    #expect(runs > 300)
  }

  /// A consumer busy while values fall due: only the latest waits for it (with `reducing`, all of them combined
  /// in order), however many fell due.
  @Test(arguments: [false, true])
  func aBusyConsumerFindsOneValueWaiting(reducing: Bool) async throws {
    let clock = ManualClock()
    let base = FedSequence<Int>()
    let sum: @Sendable (inout Int, Int) -> Void = { $0 += $1 }
    let sequence = base.throttled(for: .seconds(1), clock: clock, reducing: reducing ? sum : nil)
    var iterator = sequence.makeAsyncIterator()
    let first = Task { [clock] in
      await base.waitUntilAsked(1)
      base.send(1)
      await base.waitUntilAsked(2)
      clock.advance(by: .zero)
    }
    #expect(try await iterator.next() == 1)
    await first.value
    // Not waiting: 1,000 values fall due, one a second.
    for value in 2...1_001 {
      clock.advance(by: .seconds(1))
      base.send(value)
      await base.waitUntilAsked(value + 1)
      clock.advance(by: .zero)
    }
    base.finish()
    #expect(try await iterator.next() == (reducing ? (2...1_001).reduce(0, +) : 1_001))
    #expect(try await iterator.next() == nil)
    #expect(try await iterator.next() == nil)
  }

  /// The base's end yields the held value at once, without the clock, then ends.
  @Test func theEndYieldsTheHeldValueAtOnce() async throws {
    let clock = ManualClock()
    let base = FedSequence<String>()
    let consumer = Task {
      var values: [String] = []
      for try await value in base.debounced(for: .seconds(300), clock: clock) { values.append(value) }
      return values
    }
    await base.waitUntilAsked(1)
    base.send("a")
    await base.waitUntilAsked(2)
    base.send("b")
    await base.waitUntilAsked(3)
    base.finish()
    #expect(try await consumer.value == ["b"])
    #expect(clock.now == .zero)
  }

  /// The base throws: the held value first, then the error.
  @Test func anErrorComesAfterTheHeldValue() async throws {
    let clock = ManualClock()
    let base = FedSequence<String>()
    let values = Recorder<String>()
    let consumer = Task {
      for try await value in base.throttled(for: .seconds(5), mode: .trailing, clock: clock) {
        values.record(value)
      }
    }
    await base.waitUntilAsked(1)
    base.send("a")
    await base.waitUntilAsked(2)
    base.fail()
    await #expect(throws: FedSequence<String>.FedError.self) { try await consumer.value }
    #expect(values.values == ["a"])
  }

  /// Cancelling the consumer ends the iteration, stops reading the base, and the timer it left does nothing.
  @Test func cancellationLeavesNothingRunning() async throws {
    let clock = ManualClock()
    let base = FedSequence<String>()
    let delivered = Recorder<String>()
    let consumer = Task {
      for try await value in base.debounced(for: .seconds(3), clock: clock) { delivered.record(value) }
      return "ended"
    }
    await base.waitUntilAsked(1)
    base.send("a")
    await base.waitUntilAsked(2)
    // "a" is held, its timer armed.
    #expect(clock.scheduledCount >= 1)
    consumer.cancel()
    #expect(try await consumer.value == "ended")
    clock.advance(by: .seconds(10))
    #expect(delivered.count == 0)
    #expect(base.sawCancellation)
    #expect(clock.scheduledCount == 0)
  }

  /// A sequence dropped mid-iteration lets go of its reader and its closure object.
  @Test func anIteratorDroppedStopsReadingTheBase() async throws {
    let clock = ManualClock()
    let base = FedSequence<Int>()
    do {
      var iterator = base.throttled(for: .seconds(1), clock: clock).makeAsyncIterator()
      let first = Task { [clock] in
        await base.waitUntilAsked(1)
        base.send(1)
        await base.waitUntilAsked(2)
        clock.advance(by: .zero)
      }
      #expect(try await iterator.next() == 1)
      await first.value
    }
    // The iteration went away with the iterator, and cancelled its reader at once.
    #expect(base.sawCancellation)
    #expect(clock.scheduledCount <= 1)
  }

  /// Each iteration has its own rule state and its own iterator of the base.
  @Test func twoIterationsAreIndependent() async throws {
    let clock = ManualClock()
    let sequence = Numbers(count: 10).throttled(for: .seconds(60), mode: .trailing, clock: clock) { $0 += $1 }
    var first: [Int] = []
    for await total in sequence { first.append(total) }
    var second: [Int] = []
    for await total in sequence { second.append(total) }
    #expect(first == [55])
    #expect(second == [55])
  }

  /// A base that never throws needs no `try`: `AsyncStream`, with typed throws.
  @Test func aStreamNeedsNoTry() async {
    let (stream, continuation) = AsyncStream<String>.makeStream()
    continuation.yield("s")
    continuation.yield("sw")
    continuation.finish()
    var queries: [String] = []
    for await query in stream.debounced(for: .milliseconds(300)) { queries.append(query) }
    #expect(queries == ["sw"])
    var taps = 0
    let (tapStream, tapContinuation) = AsyncStream<Void>.makeStream()
    for _ in 0..<5 { tapContinuation.yield() }
    tapContinuation.finish()
    for await count in tapStream.map({ _ in 1 }).throttled(
      for: .milliseconds(500), mode: .trailing, reducing: { $0 += $1 })
    {
      taps += count
    }
    #expect(taps == 5)
  }
}

/// 1 to `count`, without waiting: a base whose every iteration starts over.
struct Numbers: AsyncSequence, Sendable {
  let count: Int
  struct AsyncIterator: AsyncIteratorProtocol {
    var next = 1
    let count: Int
    mutating func next() async -> Int? {
      guard next <= count else { return nil }
      defer { next += 1 }
      return next
    }
  }
  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count) }
}

#if canImport(Observation)
  import Observation

  @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
  @Observable final class ObservedDocument: @unchecked Sendable {
    // @unchecked Sendable: the test reads and writes `text` on the main actor only.
    var text = "draft"
  }

  /// SPEC 4.3's call site over `Observations`: no `try`, the latest version at most every 2 s.
  @Suite struct ObservationsSequenceTests {
    @available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *)
    @MainActor @Test func observationsAreThrottledWithoutTry() async {
      let document = ObservedDocument()
      var saved: [String] = []
      for await text in Observations({ document.text }).throttled(for: .seconds(2), mode: .firstPerDuration) {
        saved.append(text)
        break
      }
      #expect(saved == ["draft"])
    }
  }
#endif

#if os(Linux)
  import Foundation

  /// SPEC 4.3: a slow consumer on a fast base keeps memory flat, over 1,000,000 elements each a run (a
  /// zero-interval throttle on the real clock). Run in a process of its own, so that its peak memory is its own.
  @Suite struct SequenceMemoryTests {
    @Test func aSlowConsumerOnAFastBaseKeepsMemoryFlat() async {
      await #expect(processExitsWith: .success) {
        func peakKilobytes() -> Int {
          let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
          let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
          return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        let base = EndSignallingNumbers(count: 1_000_000)
        let before = peakKilobytes()
        var iterator = base.throttled(for: .zero).makeAsyncIterator()
        guard await iterator.next() == 0 else { fatalError("the first element") }
        // Not waiting while the base runs through its million elements.
        await base.reachedTheEnd.wait(until: 1)
        var last = 0
        while let value = await iterator.next() { last = value }
        let grown = peakKilobytes() - before
        guard last == 999_999 else { fatalError("last \(last)") }
        // Before the reader waited for its runs every 64 calls: 130 MB. Under AddressSanitizer, whose quarantine
        // keeps freed memory for a while, the peak says nothing: there the test checks the values, and LeakSanitizer
        // the rest.
        let addressSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
        guard grown < 30_000 || addressSanitizer else { fatalError("peak memory grew by \(grown) kB") }
      }
    }
  }

  /// 0 to `count − 1` without waiting; counts when the end is reached.
  struct EndSignallingNumbers: AsyncSequence, Sendable {
    let count: Int
    let reachedTheEnd = CountWaiter()
    struct AsyncIterator: AsyncIteratorProtocol {
      var next = 0
      let count: Int
      let reachedTheEnd: CountWaiter
      mutating func next() async -> Int? {
        guard next < count else {
          reachedTheEnd.increment()
          return nil
        }
        defer { next += 1 }
        return next
      }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count, reachedTheEnd: reachedTheEnd) }
  }
#endif
