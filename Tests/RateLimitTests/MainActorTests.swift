import Dispatch
import RateLimit
import Testing

/// The main-actor initializers, and SPEC's two example lines, compiled and run as a user would write them.
@MainActor @Suite struct MainActorTests {
  /// SPEC's first example, in the main-actor view controller it is written for.
  @MainActor final class ViewController {
    let tableView = TableView()
    var reload: Throttler<Void>?

    init(clock: some RateLimitClock) {
      reload = Throttler(interval: .milliseconds(300), clock: clock) { [weak self] in self?.tableView.reloadData() }
    }
  }

  @Test func specExampleThrottlerRunsOnTheMainActor() {
    let clock = ManualClock()
    let controller = ViewController(clock: clock)
    controller.reload?()
    controller.reload?()
    clock.advance(by: .zero)
    #expect(controller.tableView.reloads == 1)
    clock.advance(by: .milliseconds(300))
    controller.reload?()
    clock.run()
    #expect(controller.tableView.reloads == 2)
  }

  @Test func specExampleDebouncerRunsOnItsQueue() async {
    let work = DispatchQueue(label: "MainActorTests.work")
    let loader = Loader()
    let search = Debouncer<String>(interval: .milliseconds(250), queue: work) { text in loader.load(text) }
    search("s")
    search("sw")
    search("swi")
    search.flush()
    await withCheckedContinuation { continuation in work.async { continuation.resume() } }
    #expect(loader.loaded.values == ["swi"])
  }

  @Test func mainActorActionRunsWithMainActorState() {
    let clock = ManualClock()
    var seen: [Int] = []
    let debouncer = Debouncer<Int>(interval: .seconds(1), clock: clock) { value in seen.append(value) }
    debouncer(1)
    debouncer(2)
    clock.run()
    #expect(seen == [2])
  }

  @Test func mainActorActionOnTheRealClockRunsOnTheMainQueue() async {
    let value: Int = await withCheckedContinuation { continuation in
      let throttler = Throttler<Int>(interval: .milliseconds(10), mode: .trailing) { value in
        dispatchPrecondition(condition: .onQueue(.main))
        continuation.resume(returning: value)
      }
      throttler(1)
      throttler(2)
      throttler.flush()
    }
    #expect(value == 2)
  }

  @Test func voidMainActorDebouncer() {
    let clock = ManualClock()
    var count = 0
    let debouncer = Debouncer(interval: .seconds(1), maxWait: .seconds(3), clock: clock) { count += 1 }
    debouncer()
    debouncer.call()
    clock.run()
    #expect(count == 1)
  }

  /// The first example of the article "Testing with ManualClock" (the README's until it became a first page).
  @Test func searchesOnlyTheLatestTextAfterAPause() {
    let clock = ManualClock()
    var searched: [String] = []
    let search = Debouncer<String>(interval: .milliseconds(250), clock: clock) { searched.append($0) }

    search("s")
    clock.advance(by: .milliseconds(100))
    search("sw")
    clock.advance(by: .milliseconds(249))
    #expect(searched.isEmpty)  // still typing
    clock.advance(by: .milliseconds(1))
    #expect(searched == ["sw"])  // ran at 350 ms
    #expect(clock.now == .milliseconds(350))
  }
}
