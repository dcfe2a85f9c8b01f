#if Postgres
  import Logging
  import PostgresNIO
  import RateLimit

  /// `prepare`: the schema created or migrated (`Schema.prepare`), the name's rule stored or checked against this
  /// limiter's (a trap naming both), once per limiter before its first statement.
  extension PostgresPermitStore {
    /// Runs `prepare()`'s statement and checks this limiter's rule and parameters against those stored for its
    /// name, within `limit`.
    func prepare(within deadline: Duration) async throws {
      _ = try await run(PostgresQuery(unsafeSQL: Schema.prepare), as: Int32.self, within: deadline)
      let rule = burst == nil ? "window" : "bucket"
      let burst = self.burst.map(Int64.init)
      let query: PostgresQuery = """
        WITH stored AS (
          INSERT INTO ratelimit_names (name, rule, lim, win, burst) \
          VALUES (\(nameBytes), \(rule), \(Int64(limit)), \(windowNanoseconds), \(burst)) \
          ON CONFLICT (name) DO NOTHING RETURNING rule, lim, win, burst)
        SELECT rule, lim, win, burst FROM stored UNION ALL \
        SELECT rule, lim, win, burst FROM ratelimit_names WHERE name = \(nameBytes) LIMIT 1
        """
      if let (storedRule, storedLimit, storedWindow, storedBurst) = try await runRow(
        query, as: (String, Int64, Int64, Int64?).self),
        storedRule != rule || storedLimit != Int64(self.limit) || storedWindow != windowNanoseconds
          || storedBurst != burst
      {
        fatalError(
          "PostgresRateLimiter: name \"\(name)\" is stored with \(Self.describe(storedRule, storedLimit, storedWindow, storedBurst)); "
            + "this limiter has \(Self.describe(rule, Int64(self.limit), windowNanoseconds, burst)). Limiters that share "
            + "a name must share its rule and parameters: use another name (or delete the name's row from "
            + "ratelimit_names once no instance uses it)")
      }
      isPrepared.withLock { $0 = true }
      logger.debug(
        "rate limit: schema ready (created or migrated to release \(Schema.version) if older)",
        metadata: ["ratelimit.name": "\(name)"])
    }

    static func describe(_ rule: String, _ limit: Int64, _ window: Int64, _ burst: Int64?) -> String {
      let kind = rule == "window" ? "a sliding window" : "a token bucket"
      return "\(kind) of \(limit) per \(Duration.nanoseconds(window))" + (burst.map { ", burst \($0)" } ?? "")
    }

    /// Decisions before `prepare()` has succeeded prepare first, within `timeout`: a limiter made while the
    /// database is down answers by its policy, and prepares itself once the database answers.
    func prepareIfNeeded() async throws {
      if isPrepared.withLock({ $0 }) { return }
      try await prepare(within: timeout)
    }
  }
#endif
