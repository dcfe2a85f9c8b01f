import RateLimit
import Testing

#if os(Linux)
  import Foundation

  /// SPEC 4.4, "Memory": 1,000,000 one-off keys through `KeyedConcurrencyLimiter` (acquired and released, or
  /// deallocated) grow resident memory by less than 24 MiB; `count` is 0 after them. In a process of its own, so
  /// that the peak is its own.
  @Suite struct LeaseMemoryTests {
    @Test func aMillionOneOffKeysKeepMemoryFlat() async {
      await #expect(processExitsWith: .success) {
        func peakKilobytes() -> Int {
          let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
          let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
          return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        let limiter = KeyedConcurrencyLimiter<String>(limit: 2)
        let before = peakKilobytes()
        var granted = 0
        for index in 0..<1_000_000 {
          let key = "client-\(index)"
          if index % 2 == 0 {
            guard let lease = limiter.tryAcquire(for: key) else { continue }
            lease.release()
          } else {
            guard limiter.tryAcquire(2, for: key) != nil else { continue }  // deallocated at once
          }
          granted += 1
        }
        let grown = peakKilobytes() - before
        guard granted == 1_000_000 else { fatalError("granted \(granted)") }
        guard limiter.count == 0 else { fatalError("count \(limiter.count)") }
        // Under AddressSanitizer, whose quarantine keeps freed memory for a while, the peak says nothing: there
        // the test checks the counts, and LeakSanitizer the rest.
        let addressSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
        guard grown < 24 * 1_024 || addressSanitizer else { fatalError("peak memory grew by \(grown) kB") }
      }
    }
  }
#endif
