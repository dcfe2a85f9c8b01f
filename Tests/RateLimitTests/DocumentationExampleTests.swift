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

actor Uploader {
  private(set) var uploads = 0
  func upload() { uploads += 1 }
}

final class EventLog: Sendable {
  private let uploadSoon: Debouncer<Void>

  init(uploader: Uploader, queue: DispatchQueue) {
    // After 2 s of quiet, and at least every 10 s while events keep coming.
    uploadSoon = Debouncer(interval: .seconds(2), maxWait: .seconds(10), queue: queue) {
      Task { await uploader.upload() }
    }
  }

  func record(_ event: String) {
    uploadSoon()  // from any thread or task; no `await` needed
  }
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

  @Test func eventLogHoldsEventsBackDuringTheQuietPeriod() async {
    let uploader = Uploader()
    let queue = DispatchQueue(label: "DocumentationExampleTests.events")
    let log = EventLog(uploader: uploader, queue: queue)
    for event in ["a", "b", "c"] { log.record(event) }
    // Nothing before the 2 s quiet period: the recorded events are still held back.
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    #expect(await uploader.uploads == 0)
  }

  @Test func searchModelFlushesAndCancels() async {
    let loader = Loader()
    let model = SearchFieldModel(loader: loader)
    model.search("sw")
    model.returnPressed()
    model.search("x")
    model.fieldCleared()
    await waitUntil(seconds: 5) { loader.loaded.count > 0 }
    #expect(loader.loaded.values == ["sw"])
    #expect(!model.search.isPending)
  }
}
