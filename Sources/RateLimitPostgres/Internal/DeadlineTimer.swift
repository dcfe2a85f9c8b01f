#if Postgres
  import RateLimit

  /// One timer for every deadline of a limiter: a deadline is an entry here, not a task of its own. One task
  /// sleeps until the earliest entry, fires every entry that is due, sleeps again until the next, and ends when
  /// none is left; an entry earlier than the one it sleeps for starts a new task in its place. A limiter's
  /// deadlines are its `timeout` after each decision starts, so they come in order: while decisions keep coming
  /// the task wakes about once a `timeout`, and an entry is added and removed under one lock. 4.1 started a task
  /// and a sleep for every decision (10–39 µs of a lone decision's p50).
  ///
  /// ```
  /// schedule(a)    one sleeper: sleeps until a
  /// schedule(b, c) added behind a: nothing started
  /// cancel(a)      removed; woken at a, the sleeper
  ///                sleeps on until b, fires it, ...
  /// (none left)    the sleeper ends
  /// ```
  final class DeadlineTimer: Sendable {
    private struct Entry {
      var id: UInt64
      var at: ContinuousClock.Instant
      var fire: @Sendable () -> Void
    }

    private struct State {
      /// By instant, then by arrival.
      var entries: [Entry] = []
      var lastID: UInt64 = 0
      /// The instant the current sleeper sleeps until, and which sleeper is current (`nil`: none runs).
      var sleepsUntil: ContinuousClock.Instant?
      var generation: UInt64 = 0
      var sleeper: Task<Void, Never>?
    }

    private let state = LockedValue(State())

    /// Calls `fire` (once, off the lock) at `deadline`, unless ``cancel(_:)`` comes first: the entry's id.
    func schedule(at deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
      state.withLock { state in
        state.lastID += 1
        let entry = Entry(id: state.lastID, at: deadline, fire: fire)
        if let last = state.entries.last, last.at > deadline {
          let index = state.entries.firstIndex { $0.at > deadline } ?? state.entries.endIndex
          state.entries.insert(entry, at: index)
        } else {
          state.entries.append(entry)
        }
        if state.sleepsUntil.map({ deadline < $0 }) ?? true {
          state.sleeper?.cancel()
          state.generation += 1
          state.sleepsUntil = deadline
          let generation = state.generation
          state.sleeper = Task { [self] in await sleep(until: deadline, generation: generation) }
        }
        return entry.id
      }
    }

    /// Removes entry `id` if it has not fired (the earliest entries finish first, so it is found near the front).
    func cancel(_ id: UInt64) {
      state.withLock { state in
        if let index = state.entries.firstIndex(where: { $0.id == id }) { state.entries.remove(at: index) }
      }
    }

    /// How many entries wait, whether a sleeper runs, and how many sleepers were started: what tests check.
    var counts: (entries: Int, sleeping: Bool, started: UInt64) {
      state.withLock { ($0.entries.count, $0.sleepsUntil != nil, $0.generation) }
    }

    private func sleep(until first: ContinuousClock.Instant, generation: UInt64) async {
      var next = first
      while true {
        // Cancelled: an earlier entry started another sleeper, which owns the entries now.
        do { try await Task.sleep(until: next, clock: .continuous) } catch { return }
        let (due, following): ([Entry], ContinuousClock.Instant?) = state.withLock { state in
          guard state.generation == generation else { return ([], nil) }
          let now = ContinuousClock.now
          let count = state.entries.prefix { $0.at <= now }.count
          let due = Array(state.entries.prefix(count))
          state.entries.removeFirst(count)
          state.sleepsUntil = state.entries.first?.at
          if state.sleepsUntil == nil { state.sleeper = nil }
          return (due, state.sleepsUntil)
        }
        for entry in due { entry.fire() }
        guard let following else { return }
        next = following
      }
    }
  }
#endif
