import Foundation
import Synchronization
import Testing

// The live-server tests' helpers, shared by the Hummingbird and Vapor suites.

/// A gate routes wait at until the test opens it (any number of waiters).
public final class Latch: Sendable {
  private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  /// A closed latch.
  public init() {}

  /// Returns once the latch is open (at once if it is).
  public func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiters.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
    }
  }

  /// Opens the latch: every waiter returns, and later ones at once.
  public func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// A value shared between tasks.
public final class Shared<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>
  /// `value`, shared.
  public init(_ value: Value) { mutex = Mutex(value) }

  /// Runs `body` on the value, under its lock.
  public func withLock<Result: Sendable>(_ body: (inout sending Value) -> sending Result) -> Result {
    mutex.withLock(body)
  }
}

/// Waits until `condition` holds, for at most 10 s.
public func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
  for _ in 0..<1_000 {
    if try await condition() { return }
    try await Task.sleep(for: .milliseconds(10))
  }
  Issue.record("never: \(what)")
}

/// Runs curl (a real HTTP client) with `arguments`; returns what it printed. Waited for on a thread of its own:
/// a blocking read on the cooperative pool (two threads here) would starve the server under test.
public func curl(_ arguments: [String], executable: String = "/usr/bin/curl") async throws -> String {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: executable)
      process.arguments = arguments
      let pipe = Pipe()
      process.standardOutput = pipe
      do {
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        continuation.resume(returning: String(decoding: output, as: UTF8.self))
      } catch {
        continuation.resume(throwing: error)
      }
    }
  }
}

/// curl reading `url` until it has `bytes` bytes, then going away (the pipe to `head` closes, so curl's next
/// write fails and it exits): a client that leaves mid-stream at a known point, whatever the machine's speed.
public func curlLeaving(after bytes: Int, _ url: String) async throws -> String {
  try await curl(["-c", #"curl -s -N --max-time 10 "$0" | head -c "$1""#, url, "\(bytes)"], executable: "/bin/sh")
}
