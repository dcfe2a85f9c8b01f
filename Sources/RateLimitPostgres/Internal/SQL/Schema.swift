#if Postgres
  /// Everything `PostgresRateLimiter` sends, in one place: the tables and functions `prepare()` creates, and the
  /// statements of each decision. Every quantity is an exact integer: times and windows in whole nanoseconds
  /// (`bigint`), a token bucket's credit in nanosecond-permits (`numeric`: a permit is worth T, a nanosecond adds N),
  /// as `RateLimiter` counts them. Keys and names are `bytea` (PostgreSQL `text` cannot hold NUL), always bound
  /// parameters, never SQL text.
  ///
  /// One row per key in use (`ratelimit_keys`). Every decision on a key is one statement that first takes the
  /// key's transaction-scoped advisory lock, then reads the row and "now" (never behind the key's latest one), and
  /// writes the row once: so however many processes ask, decisions on a key are serialized and none is granted
  /// more than its rule allows.
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
    /// (`Schema+Release10.swift`); its decisions read both, so every older function that calls
    /// `ratelimit_decide_v4` follows them.
    /// Release 11 (4.2) coalesces give-backs with decisions (`ratelimit_decide_many_v7`, mode 3), gives back a
    /// joint decision's grants in one statement (`ratelimit_give_back_all_v1`), gives back by the name's stored
    /// rule (`ratelimit_undo_v5`), and updates a name in O(1), each key settling when next read
    /// (`ratelimit_settle_v1`; `Schema+Release11.swift`).
    static let version = 11

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
          DROP TABLE IF EXISTS ratelimit_keys;
          \(keysTable)
        END IF;
        -- Booking ids never repeat, across sweeps and crashes (a sequence is not UNLOGGED); 4.0's start at 0.
        CREATE SEQUENCE IF NOT EXISTS ratelimit_booking_ids START WITH 1099511627776;
        \(namesTable)
        \(release10Columns)
        \(release11Objects)
        CREATE UNLOGGED TABLE IF NOT EXISTS ratelimit_revoked (
            id bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT now());
        \(clockFunction)
        \(lockKeyFunction)
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
        \(operateFunction)
        \(decidePenalisingFunction)
        \(updateFunction)
        DELETE FROM ratelimit_schema;
        INSERT INTO ratelimit_schema (version) VALUES (3);
        DELETE FROM ratelimit_release;
        INSERT INTO ratelimit_release (version) VALUES (\(version));
      END
      $prepare$
      """

    /// Each name's rule and parameters, stored by the first limiter that prepares it: a limiter with others is
    /// refused (a trap naming both) instead of mixing two rules in one row.
    static let namesTable = """
      CREATE TABLE IF NOT EXISTS ratelimit_names (
          name bytea PRIMARY KEY,
          rule text NOT NULL,
          lim bigint NOT NULL,
          win bigint NOT NULL,
          burst bigint
      );
      """

    /// A key's state: a sliding window's bookings in (now − T, ∞), or a token bucket's credit and bookings ahead.
    /// UNLOGGED: not written to the WAL (a decision costs less); after a database crash every key is fresh.
    static let keysTable = """
      CREATE UNLOGGED TABLE ratelimit_keys (
          name bytea NOT NULL,
          key bytea NOT NULL,
          -- The latest "now" of a decision on this key: "now" never goes behind it.
          latest bigint NOT NULL DEFAULT -9223372036854775808,
          -- From this instant on the key is at rest (fresh): its row is no longer needed.
          rest_at bigint NOT NULL DEFAULT -9223372036854775808,
          -- Bookings in booking order: instants, permits, ids. Window: those in (now - T, inf); bucket: ahead.
          times bigint[] NOT NULL DEFAULT '{}',
          permits bigint[] NOT NULL DEFAULT '{}',
          ids bigint[] NOT NULL DEFAULT '{}',
          -- Window: running totals of permits (cum[i] = permits booked up to booking i), so that the permits in
          -- any window are one subtraction away, found by binary search over the instants.
          cum numeric[] NOT NULL DEFAULT '{}',
          next_id bigint NOT NULL DEFAULT 0,
          -- Token bucket: credit at last (NULL: full), last, and the state before the latest booking, for cancel.
          tokens numeric,
          last bigint NOT NULL DEFAULT -9223372036854775808,
          before_tokens numeric,
          before_last bigint,
          before_id bigint,
          PRIMARY KEY (name, key)
      );
      -- The sweep finds keys at rest by this index, never by scanning the keys in use.
      CREATE INDEX ratelimit_keys_rest ON ratelimit_keys (name, rest_at);
      """

    /// The advisory lock of one key of one name (64 bits of a hash of both: two keys that collide only wait for
    /// each other). `bytea::text` is hex, so the separator is unambiguous.
    static let lockKeyFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_lock_key(p_name bytea, p_key bytea) RETURNS bigint
      LANGUAGE sql IMMUTABLE STRICT AS
      $f$ SELECT hashtextextended(p_name::text || '/' || p_key::text, 7240317146390512431) $f$;
      """

    /// The database's clock in whole nanoseconds since the Unix epoch (microseconds on most servers).
    static let clockFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_clock() RETURNS bigint LANGUAGE sql VOLATILE AS
      $f$ SELECT (extract(epoch FROM clock_timestamp()) * 1000000000)::bigint $f$;
      """

    /// Deletes up to `p_batch` rows of a name that only keys at rest hold, skipping rows a decision holds and keys
    /// a decision is deciding (their advisory locks, tried without waiting: see `sweep(restBy:except:counting:)`).
    /// Returns how many it deleted; `count()` and `sweep()` use "now" from `p_now` or the database's clock.
    static let sweepFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_sweep(p_name bytea, p_now bigint, p_batch integer) RETURNS integer
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          deleted integer;
      BEGIN
          DELETE FROM ratelimit_keys WHERE ctid = ANY (ARRAY(
              SELECT ctid FROM ratelimit_keys k
              WHERE name = p_name AND rest_at <= coalesce(p_now, ratelimit_clock())
                  AND coalesce(blocked_until, -9223372036854775808) <= coalesce(p_now, ratelimit_clock())
                  AND \(settledAtRest(by: "coalesce(p_now, ratelimit_clock())"))
                  AND pg_try_advisory_xact_lock(ratelimit_lock_key(name, key))
              LIMIT p_batch FOR UPDATE SKIP LOCKED));
          GET DIAGNOSTICS deleted = ROW_COUNT;
          DELETE FROM ratelimit_revoked WHERE at < now() - interval '1 hour';
          RETURN deleted;
      END
      $f$;
      """
  }
#endif
