#if Postgres
  import Dispatch
  import Foundation
  import Testing

  /// SPEC 4.0, "atomic": several OS processes, each with its own connections and four tasks, hammer one key at
  /// once; every grant's instant (database time) they recorded must satisfy the rule, and together they must have
  /// been refused (they competed). The processes are the demo's `--fleet-worker`, built beside this test.
  @Suite struct FleetTests {
    /// (limit, window in ms, burst; 0: sliding window)
    static let rules: [(Int, Int, Int)] = [(5, 35, 0), (1, 7, 0), (3, 21, 2)]

    @Test(arguments: rules.indices) func processesSharingOneKeyNeverExceedTheRule(_ index: Int) async throws {
      let (limit, windowMilliseconds, burst) = Self.rules[index]
      guard let url = TestDatabase.url else {
        _ = TestDatabase.configuration()
        return
      }
      let demo = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("rate-limit-demo").path
      #expect(FileManager.default.isExecutableFile(atPath: demo), "\(demo)")
      let name = TestDatabase.uniqueName()
      let files = (0..<4).map { "/tmp/ratelimit-fleet-\(name)-\($0)" }
      let statuses = await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
          let pids = files.map { file in
            spawn([
              demo, "--fleet-worker", url, name, "\(limit)", "\(windowMilliseconds)", "\(burst)", "4", "150", file,
            ])
          }
          continuation.resume(returning: pids.map { $0.map(wait(for:)) ?? -1 })
        }
      }
      #expect(statuses == [0, 0, 0, 0])
      var instants: [Int64] = []
      for file in files {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        instants += text.split(separator: "\n").compactMap { Int64($0) }
        try? FileManager.default.removeItem(atPath: file)
      }
      instants.sort()
      let window = Int64(windowMilliseconds) * 1_000_000
      // They competed: 2,400 requests; far fewer can have been granted in the time they took.
      #expect(instants.count > limit && instants.count < 2_400, "\(instants.count) grants")
      if burst == 0 {
        // No window of length T holds more than N: any N + 1 consecutive grants span at least T.
        for i in instants.indices.dropLast(limit) {
          #expect(instants[i + limit] - instants[i] >= window, "grants \(i)...\(i + limit)")
        }
      } else {
        // Over any span d from one grant to a later one: at most B + d·N/T grants (exact integers).
        for i in instants.indices {
          for j in i..<instants.count {
            let granted = Int64(j - i + 1)
            #expect(
              (granted - Int64(burst)) * window <= (instants[j] - instants[i]) * Int64(limit),
              "grants \(i)...\(j)")
          }
        }
      }
    }
  }
#endif
