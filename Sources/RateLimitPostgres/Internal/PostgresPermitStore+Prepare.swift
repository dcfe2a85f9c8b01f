#if Postgres
  import Logging
  import PostgresNIO
  import RateLimit

  /// `prepare`: the schema created or migrated (`Schema.prepare`), and the name's rule stored if it is not yet, or
  /// else adopted (SPEC 4.3.1: the stored rule wins, with a warning; 4.0 trapped, serving a request or at boot),
  /// once per limiter before its first statement.
  extension PostgresPermitStore {
    /// Runs `prepare()`'s statement, then stores this limiter's rule for its name unless one is stored, and
    /// adopts the one stored, within `deadline` each.
    func prepare(within deadline: Duration) async throws {
      _ = try await run(PostgresQuery(unsafeSQL: Schema.prepare), as: Int32.self, within: deadline)
      // A limiter without limiting stores no rule for its name (it would be a rule of 1 ns: none at all).
      let rule = configured.isUnlimited ? nil : configured.burst == nil ? "window" : "bucket"
      let burst = configured.burst.map(Int64.init)
      let query: PostgresQuery = """
        WITH stored AS (
          INSERT INTO ratelimit_names (name, rule, lim, win, burst) \
          SELECT \(nameBytes), \(rule), \(Int64(configured.limit)), \(windowNanoseconds), \(burst) \
          WHERE \(rule)::text IS NOT NULL \
          ON CONFLICT (name) DO NOTHING RETURNING lim, win, burst)
        SELECT lim AS o_lim, win AS o_win, burst AS o_burst, ratelimit_clock() AS o_clock \
        FROM (SELECT lim, win, burst FROM stored UNION ALL \
        SELECT lim, win, burst FROM ratelimit_names WHERE name = \(nameBytes)) AS rule LIMIT 1
        """
      if let stored = try await runRow(query, within: deadline, StoredRule.init) { adopt(stored) }
      // Local refusals are kept only while this process hears the others' operations (SPEC 4.3.1).
      await RefusalListener.register(self, within: min(deadline, timeout))
      preparation.withLock { $0 = .done }
      logger.debug(
        "rate limit: schema ready (created or migrated to release \(Schema.version) if older)",
        metadata: ["ratelimit.name": "\(name)"])
    }
  }

  /// A store prepared once before its first statement: ``PostgresPermitStore`` and the leases' store.
  protocol PreparedOnce: DatabaseRoundTrips {
    var preparation: LockedValue<Preparation> { get }
    /// Creates the schema (and whatever else the store needs first), its statements within `deadline`.
    func prepare(within deadline: Duration) async throws
  }

  extension PostgresPermitStore: PreparedOnce {}

  extension PreparedOnce {
    /// Decisions before `prepare()` has succeeded prepare first: one preparation at a time, however many
    /// decisions wait for it (200 first decisions sent 200 `prepare` blocks, which the schema's lock serialised
    /// past every timeout). Preparing is not an outage (SPEC 4.3.1): the preparation runs within
    /// ``preparationTimeout`` and a decision waits up to `timeout` for it, then `timeout` for its own statement; a
    /// database that cannot answer fails the preparation, and the waiting decisions are answered by the policy.
    func prepareIfNeeded() async throws {
      let task = preparation.withLock { state -> Task<Void, any Error>? in
        switch state {
        case .done: return nil
        case .running(let task): return task
        case .idle:
          let task = Task { [self] in
            do {
              try await prepare(within: preparationTimeout)
            } catch {
              preparation.withLock { $0 = .idle }
              throw error
            }
          }
          state = .running(task)
          return task
        }
      }
      guard let task else { return }
      do {
        try await withDeadline(timeout, on: deadlines) { try await task.value }
      } catch let error as DecisionTimedOut {
        throw PostgresPermitStore.Unavailable(error: .unavailable(underlying: error), wasSent: false)
      }
    }

    /// The bound of `prepare()`'s statements: a fresh database's schema takes longer than a decision.
    var preparationTimeout: Duration { max(timeout, .seconds(10)) }
  }

  /// Where a limiter's preparation stands.
  enum Preparation {
    case idle
    case running(Task<Void, any Error>)
    case done
  }
#endif
