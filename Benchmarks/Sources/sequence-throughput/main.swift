// `debounced` beside swift-async-algorithms' `debounce` on the same base, in the same run (SPEC 4.3): elements a
// second and nanoseconds an element, a burst of a million elements through a 10 ms debounce, then the end.
//   swift run --package-path Benchmarks -c release sequence-throughput
import AsyncAlgorithms
import Dispatch
import Foundation
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

/// The process's peak resident memory, in kilobytes (Linux: VmHWM of /proc/self/status; 0 elsewhere).
func peakResidentKilobytes() -> Int {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
  let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
  return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

@main
struct SequenceThroughput {
  static func main() async {
    if CommandLine.arguments.dropFirst().first == "memory" {
      // A consumer that takes one value, then none until the base has ended: every element of a zero-interval
      // throttle is a run, and at most one waits.
      // A slow consumer on a fast base: it takes one value, then sleeps a second while the base runs through a
      // million elements, each a run of a zero-interval throttle; at most one waits for it.
      let before = peakResidentKilobytes()
      let count = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 1_000_000
      var iterator = Burst(count: count).throttled(for: .zero).makeAsyncIterator()
      let first = await iterator.next()
      try? await Task.sleep(for: .seconds(1))
      var last = first
      var taken = 1
      while let value = await iterator.next() {
        last = value
        taken += 1
      }
      print(
        "\(count) elements: first \(first ?? -1), last \(last ?? -1), \(taken) taken; peak resident \(before) kB "
          + "before, \(peakResidentKilobytes()) kB after")
      return
    }
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
