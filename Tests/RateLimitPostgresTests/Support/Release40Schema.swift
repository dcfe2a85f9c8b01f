#if Postgres
  import Foundation
  @testable import RateLimitPostgres

  // Everything `PostgresRateLimiter` sends, in one place: the tables and functions `prepare()` creates, and the
  // statements of each decision. Every quantity is an exact integer: times and windows in whole nanoseconds
  // (`bigint`), a token bucket's credit in nanosecond-permits (`numeric`: a permit is worth T, a nanosecond adds N),
  // as `RateLimiter` counts them. Keys and names are `bytea` (PostgreSQL `text` cannot hold NUL), always bound
  // parameters, never SQL text.
  //
  // One row per key in use (`ratelimit_keys`). Every decision on a key is one statement that first takes the
  // key's transaction-scoped advisory lock, then reads the row and "now" (never behind the key's latest one), and
  // writes the row once: so however many processes ask, decisions on a key are serialized and none is granted
  // more than its rule allows.
  /// 4.0's schema (version 3): a 4.0 instance's `prepare()` and decisions, for the rolling-deploy tests. Its
  /// functions are the ones this release keeps for 4.0's processes (`Schema+Release40.swift`, one copy: release 9
  /// added a sweep's advisory lock to them) and the clock and lock key, which never changed; only 4.0's table
  /// (`cum bigint[]`) and its sweep, which this release replaced, are kept here.
  enum Release40Schema {
    /// Bumped whenever what `prepare()` creates changes; `prepare()` migrates anything older.
    static let version = 3

    /// Creates (or migrates) the tables and functions, under a transaction-wide advisory lock so that many
    /// processes may prepare at once. One statement: a `DO` block is one transaction.
    static let prepare = """
      DO $prepare$
      BEGIN
        PERFORM pg_advisory_xact_lock(7240317146390512431);
        CREATE TABLE IF NOT EXISTS ratelimit_schema (version integer NOT NULL);
        IF (SELECT max(version) FROM ratelimit_schema) IS NOT DISTINCT FROM \(version) THEN
          RETURN;
        END IF;
        -- The state is a cache of recent decisions: an older version's table is dropped, and every key is fresh.
        -- (Version 1 kept no running totals.)
        DROP TABLE IF EXISTS ratelimit_keys;
        \(keysTable)
        \(Schema.clockFunction)
        \(Schema.lockKeyFunction)
        \(version3DecideFunction)
        \(version3CancelFunction)
        \(sweepFunction)
        DELETE FROM ratelimit_schema;
        INSERT INTO ratelimit_schema (version) VALUES (\(version));
      END
      $prepare$
      """

    /// 4.0's functions as 4.0 wrote them: this release's copies without release 14's line that brings a key's
    /// chunks back into its row (4.0's database has none).
    static let version3DecideFunction = Schema.version3DecideFunction.replacingOccurrences(
      of: Schema.release40Unchunk, with: "")
    static let version3CancelFunction = Schema.version3CancelFunction.replacingOccurrences(
      of: Schema.release40Unchunk, with: "")

    /// 4.0's table: this release's (`Schema.keysTable`) with the running totals as `bigint[]`, as 4.0 kept them
    /// (a later `prepare()` migrates them to `numeric[]`).
    static let keysTable = Schema.keysTable.replacingOccurrences(
      of: "cum numeric[] NOT NULL", with: "cum bigint[] NOT NULL")

    /// Deletes up to `p_batch` rows of a name that only keys at rest hold, skipping rows a decision holds.
    /// Returns how many it deleted; `count()` and `sweep()` use "now" from `p_now` or the database's clock.
    static let sweepFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_sweep(p_name bytea, p_now bigint, p_batch integer) RETURNS integer
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          deleted integer;
      BEGIN
          DELETE FROM ratelimit_keys WHERE ctid = ANY (ARRAY(
              SELECT ctid FROM ratelimit_keys
              WHERE name = p_name AND rest_at <= coalesce(p_now, ratelimit_clock())
              LIMIT p_batch FOR UPDATE SKIP LOCKED));
          GET DIAGNOSTICS deleted = ROW_COUNT;
          RETURN deleted;
      END
      $f$;
      """
  }
#endif
