// `debounced` beside swift-async-algorithms' `debounce` on the same base, in the same run (SPEC 4.3): elements a
// second and nanoseconds an element, a burst of a million elements through a 10 ms debounce, then the end.
//   swift run --package-path Benchmarks -c release sequence-throughput
import AsyncAlgorithms
import Dispatch
import RateLimit

/// 0 to `count − 1`, without waiting: the same base for both, read as fast as each debounce can.
struct Burst: AsyncSequence, Sendable {
  let count: Int
  struct AsyncIterator: AsyncIteratorProtocol {
    var next = 0
    let count: Int
    mutating func next() async -> Int? {
      guard next < count else { return nil }
      defer { next += 1 }
      return next
    }
  }
  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count) }
}

func measure(_ name: String, count: Int, _ body: @Sendable () async -> [Int]) async -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  let values = await body()
  let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
  precondition(values.last == count - 1, "\(name) lost the last element: \(values.suffix(3))")
  let perElement = elapsed / Double(count)
  func padded(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
  }
  print(
    padded(name, 26), padded(String(Int(Double(count) / elapsed * 1e9)), 10), "elements/s ",
    padded(String((perElement * 10).rounded() / 10), 8), "ns/element (\(values.count) yielded)")
  return perElement
}

@main
struct SequenceThroughput {
  static func main() async {
    let count = 1_000_000
    let interval = Duration.milliseconds(10)
    for round in 1...3 {
      print("round \(round)")
      let ours = await measure("RateLimit debounced", count: count) {
        var values: [Int] = []
        for await value in Burst(count: count).debounced(for: interval) { values.append(value) }
        return values
      }
      let theirs = await measure("AsyncAlgorithms debounce", count: count) {
        var values: [Int] = []
        for await value in Burst(count: count).debounce(for: interval) { values.append(value) }
        return values
      }
      print("ratio (theirs / ours): \((theirs / ours * 10).rounded() / 10)x")
    }
  }
}
