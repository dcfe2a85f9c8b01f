import Dispatch
import RateLimit
import Testing

/// SPEC "Reducing", timeline by timeline: where a rule says a call replaces the held value, it is combined into
/// it instead, in call order; runs "at once" carry their own value; dropped calls stay dropped. The reducer
/// joins values with `+`, so `a+b` is one run that combined two calls (and `ab` two runs at one tick).
@Suite struct ReducingTests {
  static let join: @Sendable (inout String, String) -> Void = { $0 += "+" + $1 }

  static let throttleTrailing: [Timeline] = [
    Timeline(name: "a burst delivers every value, combined", interval: 3, events: "a b c", runs: ". . . a+b+c"),
    Timeline(name: "a call at T-1 joins the held value", interval: 3, events: "a . b", runs: ". . . a+b"),
    Timeline(name: "a call at T starts anew after the run", interval: 3, events: "a . . b", runs: ". . . a . . b"),
    Timeline(name: "a call at T+1 starts anew", interval: 3, events: "a . . . b", runs: ". . . a . . . b"),
    Timeline(name: "windows in a row", interval: 3, events: "a b c d e f g", runs: ". . . a+b+c . . d+e+f . . g"),
    Timeline(
      name: "flush delivers the combined value and starts anew", interval: 3, events: "a bF c", runs: ". a+b . . . c"),
    Timeline(name: "cancel drops the combined value", interval: 3, events: "a bC c", runs: ". . . . . c"),
    Timeline(name: "invalidate drops it", interval: 3, events: "a b I c", runs: ""),
    Timeline(name: "flush then invalidate delivers it", interval: 3, events: "a bFI c", runs: ". a+b"),
    Timeline(name: "dropping the throttler drops it", interval: 3, events: "a b D", runs: ""),
    Timeline(name: "zero interval: every call runs with its own value", interval: 0, events: "abc d", runs: "abc d"),
  ]

  static let firstPerDuration: [Timeline] = [
    Timeline(name: "the first call runs alone, the rest combined", interval: 3, events: "a b c", runs: "a . . b+c"),
    Timeline(name: "a call at T-1 is held", interval: 3, events: "a . b", runs: "a . . b"),
    Timeline(name: "a call at T runs at once", interval: 3, events: "a . . b", runs: "a . . b"),
    Timeline(
      name: "each window combines its calls", interval: 3, events: "a b c . d e",
      runs: "a . . b+c . . d+e"),
    Timeline(
      name: "flush delivers the held calls and opens a window", interval: 3, events: "a b cF d e",
      runs: "a . b+c . . d+e"),
    Timeline(name: "cancel drops them", interval: 3, events: "a b cC d", runs: "a . . d"),
  ]

  static let debounceTrailing: [Timeline] = [
    Timeline(name: "a burst delivers every value, combined", interval: 3, events: "a b c", runs: ". . . . . a+b+c"),
    Timeline(name: "gaps of T-1 keep combining", interval: 3, events: "a . b . c", runs: ". . . . . . . a+b+c"),
    Timeline(name: "a gap of T starts anew", interval: 3, events: "a . . b", runs: ". . . a . . b"),
    Timeline(name: "a gap of T+1 starts anew", interval: 3, events: "a . . . b", runs: ". . . a . . . b"),
    Timeline(
      name: "maxWait delivers what came so far, then combines anew", interval: 2, maxWait: 4,
      events: "a b c d e f g h", runs: ". . . . a+b+c+d . . . e+f+g+h"),
    Timeline(name: "flush delivers the combined value", interval: 3, events: "a bF c", runs: ". a+b . . . c"),
    Timeline(name: "cancel drops the combined value", interval: 3, events: "a bC c", runs: ". . . . . c"),
    Timeline(name: "zero interval: every call runs with its own value", interval: 0, events: "abc d", runs: "abc d"),
  ]

  /// The leading modes hold nothing: `reducing` changes nothing there, and dropped calls stay dropped.
  static let leading: [(LimiterKind, Timeline)] = [
    (.throttleLeading, Timeline(name: "throttler", interval: 3, events: "a b c d e", runs: "a . . d")),
    (.debounceLeading, Timeline(name: "debouncer", interval: 3, events: "a b c . . . d", runs: "a . . . . . d")),
    (
      .debounceLeading,
      Timeline(name: "debouncer, maxWait", interval: 2, maxWait: 4, events: "a b c d e f", runs: "a . . . e")
    ),
  ]

  @Test(arguments: throttleTrailing)
  func throttlerTrailing(_ timeline: Timeline) {
    timeline.play { clock, action in
      Throttler(
        interval: tick * timeline.interval, mode: .trailing, queue: .main, clock: clock, reducing: Self.join,
        action: action)
    }
  }

  @Test(arguments: firstPerDuration)
  func throttlerFirstPerDuration(_ timeline: Timeline) {
    timeline.play { clock, action in
      Throttler(
        interval: tick * timeline.interval, mode: .firstPerDuration, queue: .main, clock: clock, reducing: Self.join,
        action: action)
    }
  }

  @Test(arguments: debounceTrailing)
  func debouncerTrailing(_ timeline: Timeline) {
    timeline.play { clock, action in
      Debouncer(
        interval: tick * timeline.interval, maxWait: timeline.maxWait.map { tick * $0 }, queue: .main, clock: clock,
        reducing: Self.join, action: action)
    }
  }

  @Test(arguments: leading)
  func leadingModesAreUnchanged(_ kind: LimiterKind, _ timeline: Timeline) {
    timeline.play { clock, action in
      makeLimiter(
        kind, interval: tick * timeline.interval, maxWait: timeline.maxWait.map { tick * $0 }, clock: clock,
        reducing: Self.join, action: action)
    }
  }

  /// Calls from inside the action combine like any other.
  @Test func reentrantCallsCombine() {
    let clock = ManualClock()
    let recorder = Recorder<String>()
    let box = WeakBox<Throttler<String>>()
    let throttler = Throttler<String>(
      interval: .seconds(1), mode: .trailing, queue: .main, clock: clock, reducing: Self.join
    ) { value in
      recorder.record(value, at: clock.now)
      if value == "a+b" {
        box.object?.call("x")
        box.object?.call("y")
      }
    }
    box.object = throttler
    throttler("a")
    throttler("b")
    clock.run()
    #expect(recorder.runs.map(\.value) == ["a+b", "x+y"])
    #expect(recorder.runs.map(\.time) == [.seconds(1), .seconds(2)])
  }

  /// Combining works on the held array in place: appending 100,000 one-element arrays moves the held buffer
  /// only when it grows (about log2 of the count), never once per call as a copy would.
  @Test func combiningAppendsInPlace() {
    let clock = ManualClock()
    let buffers = Recorder<Int>()
    let delivered = Recorder<Int>()
    let debouncer = Debouncer<[Int]>(
      interval: .seconds(1), queue: .main, clock: clock,
      reducing: { held, new in
        held += new
        buffers.record(held.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) })
      }
    ) { batch in delivered.record(batch.count) }
    for value in 0..<100_000 { debouncer([value]) }
    clock.run()
    #expect(delivered.values == [100_000])
    let moves = zip(buffers.values, buffers.values.dropFirst()).filter { $0 != $1 }.count
    #expect(moves < 40, "the held array moved \(moves) times in 100,000 appends")
  }
}
