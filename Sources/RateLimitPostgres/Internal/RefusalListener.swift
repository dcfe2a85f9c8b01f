#if Postgres
  import Logging
  import PostgresNIO
  import RateLimit

  /// Another process's `reset`, `refund` or `update` ends this process's local refusals at once (SPEC 4.3.1; 4.2
  /// let them run to their instant: up to a day): the statements notify channel `ratelimit_v1` when they commit
  /// (`pg_notify`, payload the name's bytes in hex, then `:` and the key's for one key), and one listener per
  /// client forwards each notification to the ``LocalRefusals`` of the stores of that name.
  ///
  /// | the listening connection | local refusals |
  /// |---|---|
  /// | listening | kept, each ended by a notification of its key (or its name) |
  /// | not yet, lost, or no connection to spare | none kept: every decision asks the database, until it listens |
  ///
  /// The listener holds one connection of the client's pool while any store with local refusals (or leases)
  /// lives and the pool lends a second one, and tries again a second after losing it; it ends with its last
  /// store, or when the client shuts down.
  final class RefusalListener: Sendable {
    /// The listener of each client, while it has stores.
    private static let listeners = LockedValue([ObjectIdentifier: RefusalListener]())

    static let channel = "ratelimit_v1"

    private struct Entry {
      weak var store: PostgresPermitStore?
      let refusals: LocalRefusals
      let name: String
    }

    /// A `PostgresConcurrencyLimiter`'s store: its waiters check again when a key of its name moves.
    private struct LeaseEntry {
      weak var store: LeaseStore?
      let name: [UInt8]
    }

    private struct State {
      var entries: [Entry] = []
      var leaseEntries: [LeaseEntry] = []
      var isListening = false
      var listenedOnce: [CheckedContinuation<Void, Never>] = []
      /// Its task has ended (no store left, or the client shut down): a store registers with a new listener.
      var hasEnded = false
      /// The pool had no connection to spare when it last tried: registrations do not wait for it.
      var hasNoSpareConnection = false
    }

    private let state = LockedValue(State())
    private let client: PostgresClient
    private let logger: Logger

    private init(client: PostgresClient, logger: Logger) {
      (self.client, self.logger) = (client, logger)
    }

    /// Registers `store`'s local refusals with its client's listener (started if it is the first), and waits
    /// until that listener listens, at most `limit`: until it does, `store` keeps no local refusal.
    static func register(_ store: PostgresPermitStore, within limit: Duration) async {
      guard let refusals = store.localRefusals else { return }
      await register(store.client, store.logger, within: limit) { state in
        if !state.entries.contains(where: { $0.store === store }) {
          state.entries.append(Entry(store: store, refusals: refusals, name: store.name))
        }
        // Under the listener's lock, so that a connection lost meanwhile is seen after this.
        if state.isListening { refusals.listening(true) }
      }
    }

    /// Registers a leases' store with its client's listener (the same connection and channel as the local
    /// refusals': `lease:` payloads), and waits until that listener listens, at most `limit`. Until it does, the
    /// store's waiters learn of other processes' releases at their period only.
    static func register(leases store: LeaseStore, within limit: Duration) async {
      await register(store.client, store.logger, within: limit) { state in
        if !state.leaseEntries.contains(where: { $0.store === store }) {
          state.leaseEntries.append(LeaseEntry(store: store, name: Array(store.name.utf8)))
        }
        store.isNotified.withLock { $0 = state.isListening }
      }
    }

    /// Adds a store (`add`, under the listener's lock) to `client`'s listener, started if it is the first (or
    /// the last one ended), and waits until it listens, at most `limit`.
    private static func register(
      _ client: PostgresClient, _ logger: Logger, within limit: Duration, _ add: (inout State) -> Void
    ) async {
      let key = ObjectIdentifier(client)
      let (listener, start) = listeners.withLock { listeners -> (RefusalListener, Bool) in
        if let listener = listeners[key], !listener.state.withLock({ $0.hasEnded }) { return (listener, false) }
        let listener = RefusalListener(client: client, logger: logger)
        listeners[key] = listener
        return (listener, true)
      }
      listener.state.withLock { add(&$0) }
      if start { Task { await listener.run(key) } }
      await listener.waitUntilListening(within: limit)
    }

    /// Waits until the listener listens (or has listened once), at most `limit`.
    private func waitUntilListening(within limit: Duration) async {
      let timer = Task {
        try? await Task.sleep(for: limit)
        wakeWaiters()
      }
      await withCheckedContinuation { continuation in
        let now = state.withLock { state -> Bool in
          if state.isListening || state.hasNoSpareConnection { return true }
          state.listenedOnce.append(continuation)
          return false
        }
        if now { continuation.resume() }
      }
      timer.cancel()
    }

    private func wakeWaiters() {
      for waiter in state.withLock({ state in
        defer { state.listenedOnce = [] }
        return state.listenedOnce
      }) {
        waiter.resume()
      }
    }

    /// Listens while any store lives, again a second after each loss; then leaves the registry. It listens only
    /// while the pool has another connection to spare (a pool of one, or one whose connections are all busy,
    /// would otherwise have none left for the statements): if none comes within ``spareConnectionBound()``, it
    /// gives its own back and tries again later, a second, then twice as long each time, up to a minute.
    private func run(_ key: ObjectIdentifier) async {
      var retry = Duration.seconds(1)
      while hasStores() {
        do {
          try await client.withConnection { connection in
            guard await Self.hasSpareConnection(client, within: spareConnectionBound()) else {
              throw NoSpareConnection()
            }
            retry = .seconds(1)
            try await connection.listen(on: Self.channel) { notifications in
              listening(true)
              for try await notification in notifications {
                deliver(notification.payload)
                if !hasStores() { return }
              }
            }
          }
        } catch is NoSpareConnection {
          if retry == .seconds(1) {
            logger.warning(
              "rate limit: the client's pool has no connection to spare for listening (maximumConnections 1, or all busy): no local refusals, and concurrency waiters learn of other processes' releases only at their period, until it has"
            )
          }
          listening(false)
          state.withLock { $0.hasNoSpareConnection = true }
          wakeWaiters()
          try? await Task.sleep(for: retry)
          retry = min(retry * 2, .seconds(60))
          continue
        } catch {
          if isClientGone(error) {
            listening(false)
            break
          }
          logger.debug(
            "rate limit: the listening connection was lost; no local refusals until it listens again",
            metadata: ["error": "\(error)"])
        }
        listening(false)
        try? await Task.sleep(for: .seconds(1))
      }
      // Ended for good: its stores keep no refusal, and later ones register with a listener of their own.
      Self.listeners.withLock { listeners in
        state.withLock { $0.hasEnded = true }
        if listeners[key] === self { listeners[key] = nil }
      }
      listening(false)
    }

    private struct NoSpareConnection: Error {}

    /// How long listening may hold a connection while it looks for a second one: a quarter of its stores'
    /// shortest `timeout`, at most a second, so that a decision queued behind it on a pool of one still has time
    /// for its own round trip (4.4 held it a second: every decision behind it timed out at 250 ms).
    private func spareConnectionBound() -> Duration {
      let timeouts = state.withLock { state in
        state.entries.compactMap { $0.store?.timeout } + state.leaseEntries.compactMap { $0.store?.timeout }
      }
      return min(.seconds(1), (timeouts.min() ?? .seconds(4)) / 4)
    }

    /// Whether `client`'s pool lends a second connection within `bound` (the request is withdrawn after it).
    private static func hasSpareConnection(_ client: PostgresClient, within bound: Duration) async -> Bool {
      await withTaskGroup(of: Bool.self) { group in
        group.addTask { (try? await client.withConnection { _ in true }) ?? false }
        group.addTask {
          try? await Task.sleep(for: bound)
          return false
        }
        let spare = await group.next() ?? false
        group.cancelAll()
        return spare
      }
    }

    /// Whether any registered store lives (the dead ones are dropped).
    private func hasStores() -> Bool {
      state.withLock { state in
        state.entries.removeAll { $0.store == nil }
        state.leaseEntries.removeAll { $0.store == nil }
        return !state.entries.isEmpty || !state.leaseEntries.isEmpty
      }
    }

    /// Every store's refusals follow whether the listener listens; a listener that starts wakes its waiters.
    private func listening(_ isListening: Bool) {
      state.withLock { state in
        state.isListening = isListening
        if isListening { state.hasNoSpareConnection = false }
        for entry in state.entries { entry.refusals.listening(isListening) }
        for entry in state.leaseEntries { entry.store?.isNotified.withLock { $0 = isListening } }
      }
      if isListening { wakeWaiters() }
    }

    /// A notification: `name-hex` (the whole name) or `name-hex:key-hex` (one key).
    private func deliver(_ payload: String) {
      if payload.hasPrefix("lease:") { return deliverLease(payload.dropFirst(6)) }
      let parts = payload.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = Self.bytes(hex: parts[0]) else { return }
      let key = parts.count == 2 ? Self.bytes(hex: parts[1]).map(ByteBuffer.init(bytes:)) : nil
      if parts.count == 2 && key == nil { return }
      let entries = state.withLock { $0.entries }
      for entry in entries where Array(entry.name.utf8) == name {
        if let key { entry.refusals.ended(for: key) } else { entry.refusals.endedForEveryKey() }
      }
    }

    /// A lease notification: `name-hex` (an update: every key) or `name-hex:key-hex` (one key's line moved).
    private func deliverLease(_ payload: Substring) {
      let parts = payload.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = Self.bytes(hex: parts[0]) else { return }
      let key = parts.count == 2 ? Self.bytes(hex: parts[1]) : nil
      if parts.count == 2 && key == nil { return }
      let stores = state.withLock { $0.leaseEntries.filter { $0.name == name }.compactMap(\.store) }
      for store in stores { store.wake(key: key) }
    }

    /// The bytes a hex string spells (`encode(…, 'hex')`), `nil` if it spells none.
    static func bytes(hex: Substring) -> [UInt8]? {
      guard hex.utf8.count % 2 == 0 else { return nil }
      var bytes: [UInt8] = []
      bytes.reserveCapacity(hex.utf8.count / 2)
      var high: UInt8?
      for character in hex.utf8 {
        let value: UInt8
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
        default: return nil
        }
        if let first = high {
          bytes.append(first << 4 | value)
          high = nil
        } else {
          high = value
        }
      }
      return bytes
    }
  }
#endif
