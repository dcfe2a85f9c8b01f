#if Postgres
  import Dispatch
  import Foundation

  // Child processes for the tests (the demo's workers, the server script): posix_spawn and waitpid, never
  // Foundation's `Process`, whose `waitUntilExit` on Linux waits for every process that inherited its
  // descriptors and runs on the calling thread. Every wait is bounded: a child that outlives `atMost` is killed
  // and reported, so that a stuck child fails its test instead of holding CI past its time.

  /// The exit status `wait(for:atMost:)` returns for a child it had to kill.
  let killedAfterDeadline: Int32 = -9

  /// Starts `arguments` with `environment` added to this process's, its standard output and error written to
  /// `output` and `errors` (files, created or truncated) when given; `nil` if it could not be started.
  func spawn(
    _ arguments: [String], environment: [String: String] = [:], output: String? = nil, errors: String? = nil
  ) -> pid_t? {
    let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
    var argv = arguments.map { strdup($0) } + [nil]
    var envp = variables.map { strdup($0) } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (descriptor, path) in [(Int32(1), output), (Int32(2), errors)] {
      guard let path else { continue }
      posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    }
    var pid = pid_t()
    return posix_spawn(&pid, arguments[0], &actions, nil, &argv, &envp) == 0 ? pid : nil
  }

  /// Waits for `pid` to end, at most `atMost`: its exit status (128 + the signal that ended it), or ``killedAfterDeadline`` once it has been
  /// killed for outliving it. Blocks the calling thread: call it off the concurrency pool (``waitOffThePool``).
  func wait(for pid: pid_t, atMost: Duration = .seconds(180)) -> Int32 {
    wait(for: pid, until: ContinuousClock.now + atMost)
  }

  /// Waits for every one of `pids` (`nil`: not started, status -1) to end, all by one deadline `atMost` from now.
  func wait(for pids: [pid_t?], atMost: Duration) -> [Int32] {
    let deadline = ContinuousClock.now + atMost
    return pids.map { pid in pid.map { wait(for: $0, until: deadline) } ?? -1 }
  }

  private func wait(for pid: pid_t, until deadline: ContinuousClock.Instant) -> Int32 {
    var status: Int32 = 0
    while true {
      let ended = waitpid(pid, &status, WNOHANG)
      // Its exit code, or 128 + the signal that ended it (as a shell says).
      if ended == pid { return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f }
      if ended == -1 && errno != EINTR { return -1 }
      if ContinuousClock.now >= deadline {
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        FileHandle.standardError.write(Data("test: killed child \(pid): it outlived its deadline\n".utf8))
        return killedAfterDeadline
      }
      usleep(5_000)
    }
  }

  /// Runs `body` on a thread of its own, not of the concurrency pool: a blocked pool thread would hold up the
  /// timers of every test running beside this one.
  func waitOffThePool<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: body()) }
    }
  }

  /// Runs `arguments` with `environment` added to this process's, and returns its exit status.
  func spawnAndWait(_ arguments: [String], environment: [String: String], atMost: Duration = .seconds(180))
    -> Int32
  {
    guard let pid = spawn(arguments, environment: environment) else { return -1 }
    return wait(for: pid, atMost: atMost)
  }

  /// Runs `arguments` to its end (at most `atMost`): its exit status, standard output and standard error.
  func run(_ arguments: [String], atMost: Duration = .seconds(180)) async -> (Int32, String, String) {
    let base = "/tmp/ratelimit-child-\(UInt64.random(in: 0...UInt64.max))"
    let (output, errors) = (base + ".out", base + ".err")
    defer { [output, errors].forEach { try? FileManager.default.removeItem(atPath: $0) } }
    let status = await waitOffThePool {
      guard let pid = spawn(arguments, output: output, errors: errors) else { return Int32(-1) }
      return wait(for: pid, atMost: atMost)
    }
    let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    return (status, read(output), read(errors))
  }
#endif
