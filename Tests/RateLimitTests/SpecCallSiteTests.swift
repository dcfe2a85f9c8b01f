import Dispatch
import Foundation
import RateLimit
import Testing

// SPEC.md "Version 2.0": the call sites, as written there, and checks that each action runs where its comment
// says.

protocol SearchAPI: Sendable { func search(_: String) async throws -> [String] }
protocol OrderAPI: Sendable { func send() async }
struct Event: Sendable, Equatable { let id: Int }
protocol UploadClient: Sendable { func upload(_ events: [Event]) async }

@MainActor final class SearchModel {  // search as you type, calling an async API
  var results: [String] = []
  private var search: Debouncer<String>?
  init(api: some SearchAPI) {  // protocol SearchAPI: Sendable { func search(_: String) async throws -> [String] }
    search = Debouncer<String>(interval: .milliseconds(250), overlap: .cancelPrevious) { [weak self] text in
      let found = try? await api.search(text)
      self?.results = found ?? []  // runs on the main actor: no await needed here
    }
  }
  func textChanged(_ text: String) { search?(text) }
}

@MainActor final class OrderModel {  // a submit button: no second order while one is in flight
  private var submit: Throttler<Void>?
  init(api: some OrderAPI) {  // protocol OrderAPI: Sendable { func send() async }
    submit = Throttler(interval: .seconds(1), overlap: .dropNew) { await api.send() }
  }
  func tapped() { submit?() }
}

// Nonisolated code (a server, a background service): batch events, upload at most every 2 s while they keep
// coming, one upload at a time, nothing lost.
func makeUploader(client: some UploadClient) -> Debouncer<[Event]> {  // UploadClient: Sendable, async upload([Event])
  Debouncer<[Event]>(
    interval: .seconds(2), maxWait: .seconds(2), overlap: .waitForPrevious,
    reducing: { $0 += $1 }
  ) { batch in await client.upload(batch) }
}

/// Where each async action runs, checked from inside it.
struct IsolationProbe: SearchAPI, OrderAPI, UploadClient {
  let log = Recorder<String>()
  func search(_ text: String) async throws -> [String] {
    log.record("search \(text)")
    return [text.uppercased()]
  }
  func send() async { log.record("send") }
  func upload(_ events: [Event]) async { log.record("upload \(events.map(\.id))") }
}

actor Counter {
  var total = 0
  var throttler: Throttler<Int>?
  func start(clock: ManualClock) {
    throttler = Throttler<Int>(interval: .zero, overlap: .waitForPrevious, clock: clock) { value in
      self.assertIsolated()  // written inside an actor's method: runs on that actor
      self.total += value
    }
  }
  func add(_ value: Int) { throttler?(value) }
  func idle() async { await throttler?.waitUntilIdle() }
  /// Teardown: the action captures the actor, which holds the throttler; `invalidate()` breaks the cycle.
  func stop() { throttler?.invalidate() }
}

/// Made in nonisolated code: the action runs on the global concurrent executor, not on the main actor.
func makeNonisolated(clock: ManualClock, onMainThread: Recorder<Bool>) -> Throttler<Int> {
  Throttler<Int>(interval: .zero, overlap: .waitForPrevious, clock: clock) { _ in
    onMainThread.record(Thread.isMainThread)
  }
}

/// Made in nonisolated code, but the closure states its isolation.
func makeExplicitlyMainActor(clock: ManualClock, ran: Recorder<Int>) -> Throttler<Int> {
  Throttler<Int>(interval: .zero, overlap: .waitForPrevious, clock: clock) { @MainActor value in
    MainActor.assertIsolated()
    ran.record(value)
  }
}

@Suite struct SpecCallSiteTests {
  @MainActor @Test func searchModelShowsTheLatestResultsOnTheMainActor() async {
    let api = IsolationProbe()
    let model = SearchModel(api: api)
    model.textChanged("s")
    model.textChanged("sw")
    await waitUntil(seconds: 60) { !model.results.isEmpty }
    #expect(model.results == ["SW"])
    #expect(api.log.values == ["search sw"])
  }

  @MainActor @Test func orderModelSendsOncePerSecond() async {
    let api = IsolationProbe()
    let model = OrderModel(api: api)
    model.tapped()
    model.tapped()
    await waitUntil(seconds: 60) { api.log.count == 1 }
    #expect(api.log.values == ["send"])
  }

  @Test func uploaderBatchesEveryEventInNonisolatedCode() async {
    let api = IsolationProbe()
    let uploader = makeUploader(client: api)
    uploader([Event(id: 1)])
    uploader([Event(id: 2), Event(id: 3)])
    uploader.flush()
    await uploader.waitUntilIdle()
    #expect(api.log.values == ["upload [1, 2, 3]"])
  }

  @Test func syncReducingCountsTaps() {
    let work = DispatchQueue(label: "SpecCallSiteTests.taps")
    let clock = ManualClock()
    let printed = Recorder<String>()
    let taps = Throttler<Int>(
      interval: .milliseconds(300), mode: .trailing, queue: work, clock: clock, reducing: { $0 += $1 }
    ) { count in printed.record("\(count) taps", at: clock.now) }
    taps(1)
    taps(1)
    taps(1)
    clock.advance(by: .milliseconds(299))
    #expect(printed.count == 0)
    clock.advance(by: .milliseconds(1))
    #expect(printed.runs.map(\.value) == ["3 taps"])
    #expect(printed.runs.map(\.time) == [.milliseconds(300)])
  }

  @Test func anActionWrittenInAnActorRunsOnThatActor() async {
    let counter = Counter()
    await counter.start(clock: ManualClock())
    await counter.add(2)
    await counter.add(3)
    await counter.idle()
    #expect(await counter.total == 5)
    await counter.stop()
  }

  @Test func anActionWrittenInNonisolatedCodeRunsOffTheMainActor() async {
    let onMainThread = Recorder<Bool>()
    let limiter = makeNonisolated(clock: ManualClock(), onMainThread: onMainThread)
    limiter(1)
    await limiter.waitUntilIdle()
    #expect(onMainThread.values == [false])
  }

  @Test func aClosureThatStatesItsIsolationRunsThere() async {
    let ran = Recorder<Int>()
    let limiter = makeExplicitlyMainActor(clock: ManualClock(), ran: ran)
    limiter(7)
    await limiter.waitUntilIdle()
    #expect(ran.values == [7])
  }

  @MainActor @Test func aVoidActionWrittenOnTheMainActorRunsThere() async {
    var count = 0
    let limiter = Debouncer(interval: .seconds(1), overlap: .dropNew, clock: ManualClock()) {
      MainActor.assertIsolated()
      count += 1
    }
    limiter()
    limiter.flush()
    await limiter.waitUntilIdle()
    #expect(count == 1)
  }
}
