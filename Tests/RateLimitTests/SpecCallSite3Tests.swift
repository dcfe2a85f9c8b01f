import Dispatch
import Testing

@testable import RateLimit

// SPEC.md "Version 3.0": the call sites, as written there (with the names they leave open filled in), and checks
// that each means what it says.

func fetch(_ path: String) async throws -> [UInt8] { Array(path.utf8) }

// An API client: the server allows 5 requests per 10 seconds. Callers wait their turn; none is dropped.
actor GitHubClient {
  private let limiter = RateLimiter(limit: 5, per: .seconds(10))
  func get(_ path: String) async throws -> [UInt8] {
    try await limiter.acquire()
    return try await fetch(path)
  }
}

struct Request: Sendable { let id: Int }

/// A server: 100 requests per minute per client, answered 429 with Retry-After beyond that.
func serve(_ request: Request, from clientIP: String, _ perClient: KeyedRateLimiter<String>) -> Duration? {
  var answer: Duration?
  func handle(_: Request) { answer = nil }
  func reject(retryAfter: Duration?) { answer = retryAfter }
  if perClient.tryAcquire(for: clientIP) {
    handle(request)
  } else {
    reject(retryAfter: perClient.retryAfter(for: clientIP))
  }
  return answer
}

typealias DocumentID = Int
struct Document: Sendable, Equatable {
  let id: DocumentID
  let text: String
}
actor Store {
  var saved: [Document] = []
  func save(_ document: Document) { saved.append(document) }
}

@Suite struct SpecCallSite3Tests {
  @Test func anAPIClientWaitsItsTurn() async throws {
    let client = GitHubClient()
    for _ in 0..<5 { _ = try await client.get("/user") }  // a burst of 5 at once, not in 8 s
  }

  @Test func aServerAnswers429WithRetryAfter() {
    let perClient = KeyedRateLimiter<String>(limit: 100, per: .seconds(60))
    for id in 0..<100 { #expect(serve(Request(id: id), from: "10.0.0.1", perClient) == nil) }
    let retryAfter = serve(Request(id: 100), from: "10.0.0.1", perClient)
    #expect(retryAfter != nil && retryAfter! > .seconds(59))
    #expect(serve(Request(id: 0), from: "10.0.0.2", perClient) == nil)
  }

  @Test func autosaveSavesEachDocumentAfterItsLastEdit() async {
    let clock = ManualClock()
    let store = Store()
    let autosave = Keyed<DocumentID, Debouncer<Document>> { _ in
      Debouncer<Document>(interval: .seconds(1), overlap: .waitForPrevious, clock: clock) { doc in await store.save(doc)
      }
    }
    let document = Document(id: 1, text: "draft")
    autosave.call(document, for: document.id)
    autosave.call(Document(id: 1, text: "draft 2"), for: 1)
    autosave.call(Document(id: 2, text: "other"), for: 2)
    clock.advance(by: .seconds(1))
    await autosave.waitUntilIdle()
    #expect(await Set(store.saved.map(\.text)) == ["draft 2", "other"])
    #expect(autosave.count == 0)
  }

  @Test func theClocksSwiftCodeAlreadyInjects() async {
    let work = DispatchQueue(label: "SpecCallSite3Tests.work")
    let loaded = Recorder<String>()
    let search = Debouncer<String>(interval: .milliseconds(250), queue: work, clock: .swift(ContinuousClock())) {
      loaded.record($0)
    }
    search("s")
    search("sw")
    await waitUntil(seconds: 60) { loaded.values.last == "sw" }  // the timer is a task: give a busy pool time
    work.sync {}
    // "s" runs too only if the second call came more than 250 ms after the first (a very busy machine).
    #expect(loaded.values == ["sw"] || loaded.values == ["s", "sw"])
  }

  @Test func theProtocolIsActionLimiter() {
    let limiters: [any ActionLimiter<Int>] = [
      Throttler<Int>(interval: .seconds(1), queue: .main) { _ in },
      Debouncer<Int>(interval: .seconds(1), queue: .main) { _ in },
    ]
    for limiter in limiters {
      #expect(limiter.isAtRest)
      limiter.finish()
    }
  }
}
