#if Postgres
  import Logging
  import PostgresNIO
  import RateLimit

  /// The database behind a `PostgresConcurrencyLimiter`: its statements (through the same round trip as
  /// `PostgresPermitStore`'s: deadline, retries, outage back-off), the leases this process holds and their
  /// renewal, the releases not sent yet, and the waiters to wake when another process moves a key's line.
  ///
  /// | piece | where |
  /// |---|---|
  /// | the leases held, renewed every `leaseTimeout / 4` while any is held; none: no background work | ``HeldLeases`` |
  /// | releases: one statement each batch, sent at once, carried by the next decision when it comes first | ``LeaseRelease`` |
  /// | a waiter woken by `lease:` notifications (``RefusalListener``) | ``WakeSignal`` |
  /// | the name's expired rows, swept after a decision at most once per `leaseTimeout` | `LeaseSweep.swift` |
  final class LeaseStore: PreparedOnce {
    let client: PostgresClient
    let name: String
    let nameBytes: ByteBuffer
    let timeout: Duration
    let leaseTimeout: Duration
    /// `leaseTimeout` in whole nanoseconds: every row's `ttl`.
    let ttl: Int64
    /// The limit the limiter was made with: stored for its name unless one is stored.
    let configuredLimit: Int
    /// The latest limit the database reported.
    let knownLimit: LockedValue<Int>
    let outage = Outage()
    let deadlines = DeadlineTimer()
    let logger: Logger
    let preparation = LockedValue(Preparation.idle)
    let held = LockedValue(HeldLeases())
    /// Releases not sent yet (``LeaseRelease``).
    let releases = BackgroundBatches<LeaseRelease>()
    /// Tokens of statements given up on, to revoke (``LeaseRevocation``).
    let revocations = BackgroundBatches<LeaseRevocation>()
    /// This process's waiters by key, to wake when the key's line moves.
    let waiters = LockedValue([[UInt8]: [ObjectIdentifier: WakeSignal]]())
    /// When this limiter last started a sweep of the name's expired rows (`LeaseSweep.swift`).
    let sweptAt = LockedValue<ContinuousClock.Instant?>(nil)
    /// Whether the listener listens (``RefusalListener``): if not, this process's own releases wake its waiters.
    let isNotified = LockedValue(false)

    init(client: PostgresClient, name: String, limit: Int, leaseTimeout: Duration, timeout: Duration, logger: Logger) {
      (self.client, self.name, self.timeout, self.leaseTimeout, self.logger) =
        (client, name, timeout, leaseTimeout, logger)
      nameBytes = ByteBuffer(string: name)
      ttl = wholeNanoseconds(leaseTimeout, roundingUp: false)
      configuredLimit = limit
      knownLimit = LockedValue(limit)
    }

    /// How often a waiter checks its place (and so renews it) without a notification: `leaseTimeout / 3`.
    var checkPeriod: Duration { leaseTimeout / 3 }
    /// How often held leases are renewed: a quarter of `leaseTimeout`, so that a renewal late by a round trip
    /// still comes within a third.
    var renewalPeriod: Duration { leaseTimeout / 4 }

    /// `lock_timeout` of a decision: four fifths of `timeout`, as `PostgresPermitStore`'s.
    var lockTimeout: String { "\(max(1, wholeNanoseconds(timeout, roundingUp: false) / 1_250_000))ms" }

    // MARK: Preparation

    /// The schema (`Schema.prepare`), the name's limit stored unless one is, adopted; then listening.
    func prepare(within deadline: Duration) async throws {
      _ = try await run(PostgresQuery(unsafeSQL: Schema.prepare), as: Int32.self, within: deadline)
      let query: PostgresQuery = """
        WITH stored AS (
          INSERT INTO ratelimit_lease_names (name, lim) VALUES (\(nameBytes), \(Int64(configuredLimit))) \
          ON CONFLICT (name) DO NOTHING RETURNING lim)
        SELECT lim FROM stored UNION ALL SELECT lim FROM ratelimit_lease_names WHERE name = \(nameBytes) LIMIT 1
        """
      if let limit = try await run(query, as: Int64.self, within: deadline) { adopt(limit) }
      await RefusalListener.register(leases: self, within: min(deadline, timeout))
      preparation.withLock { $0 = .done }
    }

    func adopt(_ limit: Int64) {
      knownLimit.withLock { $0 = Int(clamping: limit) }
    }

    // MARK: Decisions

    /// One decision or a waiter's check, carrying this limiter's releases not sent yet (and after the one in
    /// flight, if any: a release never reaches the database after a later statement of its limiter).
    func acquire(_ permits: Int, key: ByteBuffer, wait: Bool, waiter: Int64 = 0) async throws -> LeaseRow {
      try await prepareIfNeeded()
      let carried = await releases.takeBeforeStatement()
      // The new row's token, chosen here, so that a statement this caller gives up on holds nothing if it runs late.
      let token = Int64.random(in: 1...Int64.max)
      let statement = LeaseAcquireStatement(
        name: nameBytes, key: key, permits: Int64(permits), limit: Int64(configuredLimit), ttl: ttl, wait: wait,
        waiter: waiter, releases: carried.map(\.id), lockTimeout: lockTimeout, token: token)
      let sentAt = ContinuousClock.now
      do {
        let row = try await firstRow(of: statement, outageKey: String(buffer: key))
        released(carried)
        adopt(row.limit)
        sweepIfDue(at: sentAt)
        if row.state == .granted, let id = row.id {
          held.withLock { $0.leases[id] = HeldLeases.Entry(key: String(buffer: key), renewedAt: sentAt) }
          startRenewingIfNeeded()
        }
        return row
      } catch {
        // Not known to have reached the database: sent again (a release is idempotent).
        if !carried.isEmpty { enqueue(carried) }
        // Sent, it may run after this caller gave up: what it would hold is revoked (a waiter's check takes none).
        if waiter == 0, (error as? PostgresPermitStore.Unavailable)?.wasSent == true {
          revoke(token, key: key)
        }
        throw error
      }
    }

    /// `inUse`: the permits `key`'s leases hold, after this limiter's releases.
    func inUse(key: ByteBuffer) async throws -> Int {
      try await prepareIfNeeded()
      try await sendReleasesNow()
      let query: PostgresQuery = """
        SELECT coalesce(sum(permits), 0)::bigint FROM ratelimit_leases \
        WHERE name = \(nameBytes) AND key = \(key) AND held AND expires > ratelimit_clock()
        """
      return Int(try await run(query, as: Int64.self) ?? 0)
    }

    /// `update(limit:)` for the fleet, after this limiter's releases.
    func update(limit: Int) async throws {
      try await prepareIfNeeded()
      try await sendReleasesNow()
      let query: PostgresQuery = "SELECT ratelimit_lease_update_v1(\(nameBytes), \(Int64(limit)))"
      _ = try await run(query, as: Int64.self)
      adopt(Int64(limit))
    }
  }

  // MARK: - Held leases and their renewal

  /// The leases this process holds, and the task that renews them (none while none is held).
  struct HeldLeases {
    struct Entry {
      var key: String
      /// When the statement that granted or last renewed it was sent (the database's expiry is later).
      var renewedAt: ContinuousClock.Instant
    }

    var leases: [Int64: Entry] = [:]
    var renewing: Task<Void, Never>?
  }

  extension LeaseStore {
    /// A lease of `permits` whose release gives back lease `id`.
    func lease(_ permits: Int, id: Int64) -> Lease {
      Lease(permits: permits) { [self] in release(id) }
    }

    /// This process stops counting lease `id` at once; the database has it within a round trip. A lease found
    /// expired (no longer held here) releases nothing.
    func release(_ id: Int64) {
      guard let entry = held.withLock({ $0.leases.removeValue(forKey: id) }) else { return }
      enqueue([LeaseRelease(id: id, key: Array(entry.key.utf8), until: entry.renewedAt + leaseTimeout)])
    }

    func startRenewingIfNeeded() {
      held.withLock { state in
        guard state.renewing == nil, !state.leases.isEmpty else { return }
        state.renewing = Task { [weak self] in await self?.renewWhileHeld() }
      }
    }

    /// Renews every lease held, in one statement, every `renewalPeriod`, until none is held.
    private func renewWhileHeld() async {
      while true {
        try? await Task.sleep(for: renewalPeriod)
        let ids = held.withLock { state -> [Int64] in
          if state.leases.isEmpty { state.renewing = nil }
          return Array(state.leases.keys)
        }
        if ids.isEmpty { return }
        let sentAt = ContinuousClock.now
        do {
          let statement = LeaseKeepStatement(name: nameBytes, renew: ids, release: [], ttl: ttl)
          let lost = try await run(within: timeout) { client in
            var lost: [Int64] = []
            for try await id in try await client.execute(statement) { lost.append(id) }
            return lost
          }
          let lostSet = Set(lost)
          let expired = held.withLock { state -> [(Int64, String)] in
            var expired: [(Int64, String)] = []
            for id in ids {
              if lostSet.contains(id) {
                if let entry = state.leases.removeValue(forKey: id) { expired.append((id, entry.key)) }
              } else {
                state.leases[id]?.renewedAt = sentAt
              }
            }
            return expired
          }
          for (id, key) in expired {
            logger.error(
              "concurrency limit: a lease expired before it was renewed (its process was cut off longer than leaseTimeout); its release does nothing",
              metadata: ["ratelimit.name": "\(name)", "ratelimit.key": "\(key)", "ratelimit.lease": "\(id)"])
          }
        } catch let error where isClientGone(error) {
          // The client was shut down: nothing more to renew (the database expires the leases).
          held.withLock { ($0.leases, $0.renewing) = ([:], nil) }
          return
        } catch {
          // Retried at the next period; a lease whose expiry has passed is the database's to drop.
          let now = ContinuousClock.now
          let dropped = held.withLock { state -> [String] in
            let gone = state.leases.filter { now - $0.value.renewedAt >= leaseTimeout }
            for id in gone.keys { state.leases[id] = nil }
            return gone.values.map(\.key)
          }
          for key in dropped {
            logger.error(
              "concurrency limit: a lease could not be renewed before it expired (the database did not answer)",
              metadata: ["ratelimit.name": "\(name)", "ratelimit.key": "\(key)"])
          }
        }
      }
    }
  }

  // MARK: - Releases

  /// A lease released here whose release the database does not have yet.
  struct LeaseRelease: Sendable {
    var id: Int64
    var key: [UInt8]
    /// When the lease would have expired: a release still unsent then is dropped (the database expires it).
    var until: ContinuousClock.Instant
  }

  extension LeaseStore {
    /// Queues `items`, sent in the background a batch a statement (``BackgroundBatches``) unless a decision that
    /// comes first carries them (one round trip for both); a batch the database cannot take is tried again
    /// (after 50 ms) until its leases would have expired; a shut-down client takes nothing more (the database
    /// expires them).
    func enqueue(_ items: [LeaseRelease]) {
      releases.add(items) { [self] batch in
        let now = ContinuousClock.now
        let live = batch.filter { $0.until > now }
        if live.isEmpty { return .sent }
        do {
          try await send(live)
          return .sent
        } catch {
          return isClientGone(error) ? .stop { _ in } : .failed(putBack: live, pause: .milliseconds(50))
        }
      }
    }

    /// Sends the queued releases now, in a statement of their own (`inUse`, `update`).
    func sendReleasesNow() async throws {
      let carried = await releases.takeBeforeStatement()
      if carried.isEmpty { return }
      do {
        try await send(carried)
      } catch {
        enqueue(carried)
        throw error
      }
    }

    /// One statement releasing `items`.
    private func send(_ items: [LeaseRelease]) async throws {
      let statement = LeaseKeepStatement(name: nameBytes, renew: [], release: items.map(\.id), ttl: ttl)
      _ = try await run(within: timeout) { client in
        for try await _ in try await client.execute(statement) {}
        return true
      }
      released(items)
    }

    /// Releases the database has: without a listener (no notification will come), this process's waiters for
    /// their keys check again now.
    func released(_ items: [LeaseRelease]) {
      guard !items.isEmpty, !isNotified.withLock({ $0 }) else { return }
      for key in Set(items.map(\.key)) { wake(key: key) }
    }
  }

  // MARK: - Waiters

  /// Wakes one waiter: a `signal()` before its `wait` is kept, so a notification during its round trip is not lost.
  final class WakeSignal: Sendable {
    private let state = LockedValue<(woken: Bool, continuation: CheckedContinuation<Void, Never>?)>((false, nil))

    func signal() {
      let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
        guard let continuation = state.continuation else {
          state.woken = true
          return nil
        }
        state.continuation = nil
        return continuation
      }
      continuation?.resume()
    }

    /// Returns once signalled (or at once if it was), after `duration`, or when the task is cancelled.
    func wait(atMost duration: Duration) async {
      let timer = Task { [self] in
        try? await Task.sleep(for: duration)
        signal()
      }
      defer { timer.cancel() }
      await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          let now = state.withLock { state -> Bool in
            if state.woken || Task.isCancelled {
              state.woken = false
              return true
            }
            state.continuation = continuation
            return false
          }
          if now { continuation.resume() }
        }
      } onCancel: {
        signal()
      }
      state.withLock { $0.woken = false }
    }
  }

  extension LeaseStore {
    func addWaiter(_ signal: WakeSignal, key: [UInt8]) {
      waiters.withLock { $0[key, default: [:]][ObjectIdentifier(signal)] = signal }
    }

    func removeWaiter(_ signal: WakeSignal, key: [UInt8]) {
      waiters.withLock { waiters in
        waiters[key]?[ObjectIdentifier(signal)] = nil
        if waiters[key]?.isEmpty == true { waiters[key] = nil }
      }
    }

    /// A notification: `key`'s line moved (or, `nil`, the name's limit changed): its waiters check again.
    func wake(key: [UInt8]?) {
      let signals = waiters.withLock { waiters in
        key.map { Array((waiters[$0] ?? [:]).values) } ?? waiters.values.flatMap(\.values)
      }
      for signal in signals { signal.signal() }
    }
  }
#endif
