#if Postgres
  /// Everything `PostgresRateLimiter` sends, in one place: the tables and functions `prepare()` creates, and the
  /// statements of each decision. Every quantity is an exact integer: times and windows in whole nanoseconds
  /// (`bigint`), a token bucket's credit in nanosecond-permits (`numeric`: a permit is worth T, a nanosecond adds N),
  /// as `RateLimiter` counts them. Keys and names are `bytea` (PostgreSQL `text` cannot hold NUL), always bound
  /// parameters, never SQL text.
  ///
  /// One row per key in use (`ratelimit_keys`). Every decision on a key is one statement that first takes the key's
  /// transaction-scoped advisory lock, then reads the row and "now" (never behind the key's latest one), and writes the
  /// row once: so however many processes ask, decisions on a key are serialized and none is granted more than its rule
  /// allows.
  ///
  /// The objects by file: the tables (`Schema+Tables.swift`); a decision and the sweep (`Schema+Decide.swift`); several
  /// decisions of one name (`Schema+Batch.swift`); several names' decisions for one key (`Schema+Joint.swift`); a
  /// booking given back (`Schema+TakeBack.swift`); a hot key's chunks (`Schema+Chunks.swift`); `peek`, the
  /// operations and `update` (`Schema+Operations.swift`); leases (`Schema+Leases.swift`); the functions kept for
  /// 4.0's processes (`Schema+Release40.swift`), and those 4.2 and 4.3's call that this version does not
  /// (`Schema+Release43.swift`).
  enum Schema {
    /// The functions whose answers this version widened (the rule that decided, the effective window), with the
    /// arguments they keep: dropped and created again in `prepare`'s transaction, since `CREATE OR REPLACE`
    /// cannot change an answer's columns, and given back the grants they had (``regrantWidened``: an operator who
    /// revoked `EXECUTE` from `PUBLIC` and granted it to the application's role keeps it so). An older process's
    /// statements name the columns they read, so they read them as before.
    static let answersWidened = [
      "ratelimit_key_v1(bytea, bytea, bigint, bigint, bigint, boolean)",
      "ratelimit_decide_v4(bytea, bytea, bigint, bigint, bigint, bigint, bigint, bigint, integer, integer, text, bigint)",
      "ratelimit_peek_v1(bytea, bytea, bigint, bigint, bigint, bigint, bigint, text)",
      "ratelimit_operate_v2(bytea, bytea, bigint, bigint, bigint, integer, bigint, bigint, text, bigint)",
      "ratelimit_decide_penalising_v1(bytea, bytea, bigint, bigint, bigint, bigint, bigint, text, bigint, bigint)",
      "ratelimit_decide_many_v7(bytea, bytea[], bigint, bigint, bigint, bigint[], bigint, bigint[], integer[], integer, text, bigint[])",
      "ratelimit_decide_operated_v1(bytea[], bytea, bigint[], bigint[], bigint[], bigint[], bigint[], boolean[], text, bigint[], boolean[], bigint[])",
      "ratelimit_decide_all_v6(bytea[], bytea, bigint[], bigint[], bigint[], bigint[], bigint[], boolean[], text, bigint[])",
    ]

    /// `prepare`'s SQL that keeps the grants of ``answersWidened`` (`widened_acls`; `NULL`: the defaults), then
    /// drops them.
    static let dropWidened = """
      FOR i IN 1..cardinality(widened) LOOP
            widened_acls[i] := (SELECT proacl::text FROM pg_proc WHERE oid = to_regprocedure(widened[i]));
            EXECUTE format('DROP FUNCTION IF EXISTS %s', widened[i]);
          END LOOP;
      """

    /// `prepare`'s SQL that gives ``answersWidened``, created again, the grants they had: `PUBLIC`'s `EXECUTE`
    /// only if it had it, and every role's.
    static let regrantWidened = """
      FOR i IN 1..cardinality(widened) LOOP
            CONTINUE WHEN widened_acls[i] IS NULL;
            EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', widened[i]);
            FOR role_name IN SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END
                FROM aclexplode(widened_acls[i]::aclitem[]) AS a WHERE a.privilege_type = 'EXECUTE' LOOP
              EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', widened[i], role_name);
            END LOOP;
          END LOOP;
      """

    /// The schema's version, stored in `ratelimit_release`; `ratelimit_schema` keeps saying 3, so that 4.0's
    /// `prepare()`, which drops the table unless it reads 3 there, leaves a newer schema alone during a rolling
    /// deploy. A `prepare()` never downgrades: it does nothing when the version stored is its own or newer.
    ///
    /// Side by side (SPEC, "PostgreSQL, rolling deploys"): the functions 4.0 calls (`Schema+Release40.swift`) and
    /// those 4.2 and 4.3.1 call (each with its signature and answer) are created with this version's; a database
    /// prepared by 4.0 or by any later version is migrated in place, every key's state kept. What changed when is
    /// in git's history, not here.
    static let version = 20

    /// Creates (or migrates) the tables and functions, under a transaction-wide advisory lock so that many
    /// processes may prepare at once. One statement: a `DO` block is one transaction. From 4.0 (version 3) it
    /// migrates in place, every key's state kept; anything older is a cache of recent decisions, dropped.
    static let prepare = """
      DO $prepare$
      DECLARE
        widened text[] := ARRAY['\(answersWidened.joined(separator: "', '"))'];
        widened_acls text[] := '{}';
        role_name text;
      BEGIN
        PERFORM pg_advisory_xact_lock(7240317146390512431);
        CREATE TABLE IF NOT EXISTS ratelimit_schema (version integer NOT NULL);
        CREATE TABLE IF NOT EXISTS ratelimit_release (version integer NOT NULL);
        IF coalesce((SELECT max(version) FROM ratelimit_release), 0) >= \(version) THEN
          RETURN;
        END IF;
        IF (SELECT max(version) FROM ratelimit_schema) IS NOT DISTINCT FROM 3
            AND to_regclass('ratelimit_keys') IS NOT NULL THEN
          -- 4.0's running totals were bigint[]; version 4 on keeps them as they are.
          IF (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
              WHERE attrelid = 'ratelimit_keys'::regclass AND attname = 'cum') = 'bigint[]' THEN
            ALTER TABLE ratelimit_keys ALTER COLUMN cum DROP DEFAULT,
              ALTER COLUMN cum TYPE numeric[] USING cum::numeric[], ALTER COLUMN cum SET DEFAULT '{}';
          END IF;
        ELSE
          DROP TABLE IF EXISTS ratelimit_chunks;
          DROP TABLE IF EXISTS ratelimit_keys;
          \(keysTable)
        END IF;
        -- Booking ids never repeat, across sweeps and crashes (a sequence is not UNLOGGED); 4.0's start at 0.
        CREATE SEQUENCE IF NOT EXISTS ratelimit_booking_ids START WITH 1099511627776;
        \(namesTable)
        \(blockColumns)
        \(updateObjects)
        \(uncompressedStorage)
        \(chunksTable)
        CREATE UNLOGGED TABLE IF NOT EXISTS ratelimit_revoked (
            id bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT now());
        \(dropWidened)
        \(clockFunction)
        \(lockKeyFunction)
        \(lockFunction)
        \(keyFunction)
        \(spillFunction)
        \(unchunkFunction)
        \(unchunkForFunction)
        \(unchangedFunction)
        \(chunkBeforeFunction)
        \(chunkReachingFunction)
        \(version3DecideFunction)
        \(version3CancelFunction)
        \(revokedFunction)
        \(decideFunction)
        \(decideOperatedFunction)
        \(decideAllWithIdsFunction)
        \(decideManyFunction)
        \(undoFunction)
        \(giveBackAllFunction)
        \(settleFunction)
        \(cancelFunction)
        \(revokeFunction)
        \(sweepFunction)
        \(peekFunction)
        \(inTimeFunction)
        \(operateFunction)
        \(decidePenalisingFunction)
        \(updateFunction)
        \(operationsOf42Functions)
        \(release43Functions)
        \(leaseObjects)
        \(regrantWidened)
        DELETE FROM ratelimit_schema;
        INSERT INTO ratelimit_schema (version) VALUES (3);
        DELETE FROM ratelimit_release;
        INSERT INTO ratelimit_release (version) VALUES (\(version));
      END
      $prepare$
      """
  }
#endif
