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
  /// booking given back (`Schema+TakeBack.swift`); a hot key's chunks (`Schema+Chunks.swift`); `peek`, the operations and `update` (`Schema+Operations.swift`); the
  /// functions kept for processes of older releases (`Schema+OlderReleases.swift`, and 4.0's in
  /// `Schema+Release40.swift`).
  enum Schema {
    /// This release's schema. Stored in `ratelimit_release`; `ratelimit_schema` keeps saying 3, so that 4.0's
    /// `prepare()`, which drops the table unless it reads 3 there, leaves a newer schema alone during a rolling
    /// deploy. A `prepare()` never downgrades: it does nothing when the release stored is its own or newer.
    /// Release 6 changed only how `ratelimit_decide_many_v5` runs, not what it answers, so a release-5 process
    /// keeps working beside it. Release 7 changed what a token bucket answers after its clock steps back (as
    /// `RateLimiter`'s, Go's rule), and a revocation no longer moves a key's "now" to the database's clock; the
    /// rows are as they were. Release 8 decides each part of a joint decision at its own limiter's "now"
    /// (`ratelimit_decide_all_v5`); release 7's `ratelimit_decide_all_v4` is kept, now a call of it. Release 9
    /// (4.1.1) sweeps a row only under its key's advisory lock (every older function's sweep included, so an
    /// older process beside it sweeps safely too), carries booking ids in a joint decision
    /// (`ratelimit_decide_all_v6`), takes a grant back exactly (`ratelimit_undo_v5`), and reports each
    /// decision's effective window (`ratelimit_effective_v1`, read in the same statement; the batch
    /// `ratelimit_decide_many_v6`); the functions of releases 5 to 8 stay for older processes.
    /// Release 10 (4.2) blocks keys, keeps each name's rule for every process (`update`), and operates keys
    /// (`Schema+Operations.swift`); its decisions read both, so every older function that calls
    /// `ratelimit_decide_v4` follows them.
    /// Release 11 (4.2) coalesces give-backs with decisions (`ratelimit_decide_many_v7`, mode 3), gives back a
    /// joint decision's grants in one statement (`ratelimit_give_back_all_v1`), gives back by the name's stored
    /// rule (`ratelimit_undo_v5`), and updates a name in O(1), each key settling when next read
    /// (`ratelimit_settle_v1`; `Schema+Operations.swift`).
    /// Release 12 (4.2) changes what `ratelimit_cancel_v4` leaves when it gives a token bucket's latest booking
    /// back during a block (the bucket stays at the block's end, as in the core), and a booking made during a
    /// block no longer forgets the bookings still ahead (`ratelimit_decide_v4`), and a sliding window's key whose
    /// last booking an update forgot is at rest after a cancel or an operation (`ratelimit_cancel_v4`,
    /// `ratelimit_operate_v2`).
    /// Release 13 stores a key's bookings uncompressed (`release13Storage`): a hot key's grant costs a tenth.
    /// Release 14 keeps a hot key's older bookings in chunks (`Schema+Chunks.swift`): a grant costs O(log N) in
    /// the bookings the key holds. Every function that reads a key's bookings knows the chunks (4.0's bring them
    /// back into the row first), so processes of every release keep working beside it.
    /// Release 15 (4.3.1) reads the stored rule through `ratelimit_rule_v1`, so that no statement waits for a
    /// table's lock before its `lock_timeout`; a block or penalty on a hot key keeps every booking counted; an
    /// operation that runs after its caller gave up changes nothing (`ratelimit_operate_v2`, `ratelimit_update_v2`:
    /// `ratelimit_in_time_v1`); and a refund, reset or update notifies every process (`RefusalListener`).
    /// Release 16 (4.4) adds the leases of `PostgresConcurrencyLimiter` (`Schema+Leases.swift`): new objects only,
    /// so every older process keeps working beside it.
    static let version = 16

    /// Creates (or migrates) the tables and functions, under a transaction-wide advisory lock so that many
    /// processes may prepare at once. One statement: a `DO` block is one transaction. From 4.0 (version 3) it
    /// migrates in place, every key's state kept; anything older is a cache of recent decisions, dropped.
    static let prepare = """
      DO $prepare$
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
        \(release10Columns)
        \(release11Objects)
        \(release13Storage)
        \(release14Chunks)
        CREATE UNLOGGED TABLE IF NOT EXISTS ratelimit_revoked (
            id bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT now());
        \(clockFunction)
        \(lockKeyFunction)
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
        \(decideAllFunction)
        \(version7DecideAllFunction)
        \(effectiveFunction)
        \(decideManyFunction)
        \(version10DecideManyFunction)
        \(version8DecideManyFunction)
        \(undoFunction)
        \(giveBackAllFunction)
        \(settleFunction)
        \(cancelFunction)
        \(revokeFunction)
        \(sweepFunction)
        \(peekFunction)
        \(ruleFunction)
        \(inTimeFunction)
        \(operateFunction)
        \(decidePenalisingFunction)
        \(updateFunction)
        \(operationsOf42Functions)
        \(leaseObjects)
        DELETE FROM ratelimit_schema;
        INSERT INTO ratelimit_schema (version) VALUES (3);
        DELETE FROM ratelimit_release;
        INSERT INTO ratelimit_release (version) VALUES (\(version));
      END
      $prepare$
      """
  }
#endif
