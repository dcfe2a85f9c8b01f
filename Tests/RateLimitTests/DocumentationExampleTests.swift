import Dispatch
import RateLimit
import Testing

// The longer examples of the DocC articles and the README, verbatim, so that they keep compiling and keep
// meaning what the text says. Short stand-ins (`TableView`, `Loader`, `SearchLog`) replace UIKit and app code.

/// A stand-in for `UITableView`.
@MainActor final class TableView {
  private(set) var reloads = 0
  func reloadData() { reloads += 1 }
}

/// A stand-in for an app's search backend.
final class Loader: Sendable {
  let loaded = Recorder<String>()
  func load(_ text: String) { loaded.record(text) }
}

/// "Testing with ManualClock": a small thread-safe log of (time, text).
final class SearchLog: Sendable {
  private let log = Recorder<String>()
  func append(_ text: String, at time: Duration) { log.record(text, at: time) }
  var entries: [(time: Duration, text: String)] { log.runs.map { ($0.time, $0.value) } }
}

// MARK: "Testing with ManualClock"

@MainActor
final class FeedViewModel {
  private(set) var items: [String] = []
  private(set) var reloads = 0
  private var reload: Throttler<Void>?

  init(clock: some RateLimitClock = .dispatch) {
    reload = Throttler(interval: .milliseconds(300), mode: .trailing, clock: clock) { [weak self] in
      self?.reloads += 1
    }
  }

  func received(_ item: String) {
    items.append(item)
    reload?()
  }
}

// MARK: "Swift concurrency"

@MainActor
final class ProfileViewController {
  let tableView = TableView()
  private var reload: Throttler<Void>?

  func viewDidLoad() {
    reload = Throttler(interval: .milliseconds(300)) { [weak self] in self?.tableView.reloadData() }
  }

  func dataChanged() { reload?() }
}

// MARK: "Choosing a mode" and the README

final class SearchFieldModel {
  let search: Debouncer<String>
  init(loader: Loader) {
    // A serial queue: searches run one at a time, in order.
    let queue = DispatchQueue(label: "search")
    search = Debouncer(interval: .milliseconds(250), queue: queue) {
      loader.load($0)
    }
  }
  func returnPressed() { search.flush() }
  func fieldCleared() { search.cancel() }
  deinit { search.invalidate() }
}

@Suite struct DocumentationExampleTests {
  @MainActor @Test func coalescesABurstOfResponsesIntoOneReload() {
    let clock = ManualClock()
    let model = FeedViewModel(clock: clock)

    model.received("a")
    clock.advance(by: .milliseconds(100))
    model.received("b")
    model.received("c")
    clock.advance(by: .milliseconds(199))
    #expect(model.reloads == 0)  // the window opened by "a" is still open
    clock.advance(by: .milliseconds(1))
    #expect(model.reloads == 1)  // one reload, at 300 ms, for three responses
    #expect(clock.now == .milliseconds(300))

    clock.run()  // nothing else is scheduled
    #expect(model.reloads == 1)
  }

  @Test func searchesTheLatestTextAfterAPause() {
    let clock = ManualClock()
    let searched = SearchLog()  // a small thread-safe log of (time, text)
    let search = Debouncer<String>(
      interval: .milliseconds(250), queue: .main, clock: clock
    ) { text in
      searched.append(text, at: clock.now)
    }
    search("s")
    search("sw")
    clock.advance(by: .milliseconds(250))
    search("swift")
    clock.run()
    #expect(searched.entries.map(\.text) == ["sw", "swift"])
    #expect(searched.entries.map(\.time) == [.milliseconds(250), .milliseconds(500)])
  }

  @MainActor @Test func viewControllerReloadsOnceForABurst() async {
    let controller = ProfileViewController()
    controller.viewDidLoad()
    controller.dataChanged()
    controller.dataChanged()
    // The real clock and the main queue: let the main actor run the action.
    await waitUntil(seconds: 5) { controller.tableView.reloads > 0 }
    #expect(controller.tableView.reloads == 1)
  }

  @Test func searchModelFlushesAndCancels() async {
    let loader = Loader()
    let model = SearchFieldModel(loader: loader)
    model.search("sw")
    model.returnPressed()  // searches "sw" at once
    await waitUntil(seconds: 5) { loader.loaded.count > 0 }
    model.search("x")
    model.returnPressed()
    model.fieldCleared()  // the latest intent wins: "x" is not searched, unless its search had already started
    await model.search.waitUntilIdle()
    #expect(loader.loaded.values.first == "sw")
    #expect(loader.loaded.count <= 2)
    #expect(!model.search.isPending)
    #expect(model.search.isAtRest)
  }
}

// MARK: "Async work"

@MainActor final class Searched { var texts: [String] = [] }

@MainActor @Test func searchesTheLatestText() async {
  let clock = ManualClock()
  let searched = Searched()
  let search = Debouncer<String>(
    interval: .milliseconds(250), overlap: .cancelPrevious,
    clock: clock
  ) { text in searched.texts.append(text) }

  search("s")
  search("sw")
  clock.advance(by: .milliseconds(250))  // the run starts here
  await search.waitUntilIdle()  // and has returned here
  #expect(searched.texts == ["sw"])
}

// MARK: "Swift concurrency", batching

actor Uploader {
  private(set) var uploaded: [[String]] = []
  func upload(_ events: [String]) { uploaded.append(events) }
}

final class EventLog: Sendable {
  private let upload: Debouncer<[String]>

  init(uploader: Uploader, clock: some RateLimitClock = .dispatch) {
    // After 2 s of quiet, at least every 10 s while events
    // keep coming, one upload at a time, every event once.
    upload = Debouncer<[String]>(
      interval: .seconds(2), maxWait: .seconds(10),
      overlap: .waitForPrevious, clock: clock, reducing: { $0 += $1 }
    ) { events in await uploader.upload(events) }
  }

  func record(_ event: String) {
    upload([event])  // from any thread or task; no `await`
  }

  func idle() async { await upload.waitUntilIdle() }
}

@Test func eventLogUploadsEveryEventOnce() async {
  let clock = ManualClock()
  let uploader = Uploader()
  let log = EventLog(uploader: uploader, clock: clock)
  for second in 0..<12 {
    log.record("e\(second)")
    clock.advance(by: .seconds(1))
  }
  await log.idle()
  clock.advance(by: .seconds(2))
  await log.idle()
  #expect(await uploader.uploaded == [(0..<10).map { "e\($0)" }, ["e10", "e11"]])
}

// MARK: "Choosing a mode", batching

struct Item: Identifiable, Sendable { let id: Int }

@MainActor final class ItemList {
  private(set) var reloaded: [Set<Item.ID>] = []
  private var reload: Debouncer<Set<Item.ID>>?

  init(clock: some RateLimitClock = .dispatch) {
    reload = Debouncer<Set<Item.ID>>(
      interval: .milliseconds(200), clock: clock, reducing: { $0.formUnion($1) }
    ) { [weak self] ids in self?.reloadRows(ids) }
  }

  func changed(_ item: Item) { reload?([item.id]) }
  func reloadRows(_ ids: Set<Item.ID>) { reloaded.append(ids) }
}

@MainActor @Test func changedIdsAreCollectedBeforeOneReload() {
  let clock = ManualClock()
  let list = ItemList(clock: clock)
  for id in [3, 1, 3, 2] { list.changed(Item(id: id)) }
  clock.advance(by: .milliseconds(200))
  #expect(list.reloaded == [[1, 2, 3]])
}

// MARK: "Async work": an action that calls its own limiter

protocol FallibleUploadClient: Sendable { func upload(_ events: [Event]) async -> Bool }

actor RetryingUploader {
  private var upload: Debouncer<[Event]>?
  init(client: some FallibleUploadClient, clock: ManualClock) async {
    upload = Debouncer<[Event]>(
      interval: .seconds(2), overlap: .waitForPrevious, clock: clock,
      reducing: { $0 += $1 }
    ) { [weak self] batch in
      if await !client.upload(batch) {
        await self?.log(batch)  // failed: joins the next batch
      }
    }
  }
  func log(_ events: [Event]) { upload?(events) }
  func settle() async { await upload?.waitUntilIdle() }
}

/// Fails its first upload, then records every batch.
actor FlakyClient: FallibleUploadClient {
  private var attempts = 0
  private(set) var batches: [[Event]] = []
  func upload(_ events: [Event]) async -> Bool {
    attempts += 1
    if attempts == 1 { return false }
    batches.append(events)
    return true
  }
}

@Test func aFailedBatchJoinsTheNextOne() async {
  let clock = ManualClock()
  let client = FlakyClient()
  let uploader = await RetryingUploader(client: client, clock: clock)
  await uploader.log([Event(id: 1)])
  clock.advance(by: .seconds(2))  // uploads [1]: fails, and logs it again
  await uploader.settle()
  await uploader.log([Event(id: 2)])
  clock.advance(by: .seconds(2))  // uploads [1, 2]
  await uploader.settle()
  #expect(await client.batches == [[Event(id: 1), Event(id: 2)]])
}
