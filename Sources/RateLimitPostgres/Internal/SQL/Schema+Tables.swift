#if Postgres
  /// The tables, and what a database prepared by 4.0 is given: the schema's version (`ratelimit_schema`,
  /// `ratelimit_release`, in `prepare`), each name's rule (`ratelimit_names`), each key's state (`ratelimit_keys`),
  /// blocks and window floor, update numbers (`ratelimit_updates`), uncompressed bookings (the chunks are in
  /// `Schema+Chunks.swift`); and the two helpers every function uses, a key's advisory lock and
  /// the database's clock.
  extension Schema {
    /// Each name's rule and parameters, stored by the first limiter that prepares it (or by `update`): a limiter
    /// made with others decides by the stored rule (SPEC 4.3.1; 4.0 trapped), so one row has one rule.
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

    /// A key's block and a window's floor, added to 4.0's tables.
    static let blockColumns = """
      ALTER TABLE ratelimit_keys ADD COLUMN IF NOT EXISTS blocked_until bigint;
      ALTER TABLE ratelimit_names ADD COLUMN IF NOT EXISTS floor_at bigint;
      """

    /// The update numbers: columns, table and trigger, added to 4.0's tables.
    static let updateObjects = """
      ALTER TABLE ratelimit_names ADD COLUMN IF NOT EXISTS version integer NOT NULL DEFAULT 0;
      ALTER TABLE ratelimit_keys ADD COLUMN IF NOT EXISTS version integer NOT NULL DEFAULT 0;
      CREATE TABLE IF NOT EXISTS ratelimit_updates (
          name bytea NOT NULL,
          version integer NOT NULL,
          at bigint NOT NULL,
          old_lim bigint NOT NULL,
          old_win bigint NOT NULL,
          old_burst bigint,
          new_lim bigint NOT NULL,
          new_win bigint NOT NULL,
          new_burst bigint,
          PRIMARY KEY (name, version));
      CREATE OR REPLACE FUNCTION ratelimit_new_key_v1() RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN
          NEW.version := coalesce((SELECT version FROM ratelimit_names WHERE name = NEW.name), 0);
          RETURN NEW;
      END
      $f$;
      DROP TRIGGER IF EXISTS ratelimit_keys_version ON ratelimit_keys;
      CREATE TRIGGER ratelimit_keys_version BEFORE INSERT ON ratelimit_keys
          FOR EACH ROW WHEN (NEW.version IS NULL) EXECUTE FUNCTION ratelimit_new_key_v1();
      """

    /// A key's bookings are stored as they are, never compressed (`STORAGE EXTERNAL`, out of line once
    /// the row is large). A grant rewrites the key's arrays; compressed, a hot key's grant was linear at about 2 µs
    /// a booking (7 ms at 3,000 bookings held, 22 ms at 10,100), nearly all of it TOAST's compression; stored as
    /// they are, 0.6 ms and 1.6 ms (Benchmarks/README.md). Changes no row (a row written before is compressed until
    /// its next write) and nothing an older release reads: storage is the database's business.
    static let uncompressedStorage = """
      ALTER TABLE ratelimit_keys ALTER COLUMN times SET STORAGE EXTERNAL,
          ALTER COLUMN permits SET STORAGE EXTERNAL, ALTER COLUMN ids SET STORAGE EXTERNAL,
          ALTER COLUMN cum SET STORAGE EXTERNAL;
      """

    /// The advisory lock of one key of one name (64 bits of a hash of both: two keys that collide only wait for
    /// each other). `bytea::text` is hex, so the separator is unambiguous.
    static let lockKeyFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_lock_key(p_name bytea, p_key bytea) RETURNS bigint
      LANGUAGE sql IMMUTABLE STRICT AS
      $f$ SELECT hashtextextended(p_name::text || '/' || p_key::text, 7240317146390512431) $f$;
      """

    /// The preamble of every statement that changes keys: `lock_timeout` for the locks that follow (`NULL`:
    /// the caller set it), then the advisory lock of every lock key in `p_keys` (``lockKeyFunction``), in
    /// ascending order, so that two statements never wait for each other in a cycle. `p_all` true: every lock,
    /// or the statement fails (55P03). `p_all` false (a batch): a lock that cannot be had within the timeout is
    /// returned instead; after the first such lock the rest are only tried, so a batch waits for one at most.
    static let lockFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_lock_v1(p_lock_timeout text, p_keys bigint[], p_all boolean)
      RETURNS bigint[]
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          lock_key bigint;
          blocked bigint[] := '{}';
      BEGIN
          IF p_lock_timeout IS NOT NULL THEN
              PERFORM set_config('lock_timeout', p_lock_timeout, true);
          END IF;
          IF cardinality(p_keys) > 1 THEN
              p_keys := ARRAY(SELECT DISTINCT x FROM unnest(p_keys) AS x ORDER BY 1);
          END IF;
          FOREACH lock_key IN ARRAY p_keys LOOP
              IF p_all THEN
                  PERFORM pg_advisory_xact_lock(lock_key);
              ELSIF NOT pg_try_advisory_xact_lock(lock_key) THEN
                  IF cardinality(blocked) > 0 THEN
                      blocked := blocked || lock_key;
                  ELSE
                      BEGIN
                          PERFORM pg_advisory_xact_lock(lock_key);
                      EXCEPTION WHEN lock_not_available THEN
                          blocked := blocked || lock_key;
                      END;
                  END IF;
              END IF;
          END LOOP;
          RETURN blocked;
      END
      $f$;
      """

    /// The rest of the preamble, once the key's lock is held (a read: without it): the name's stored rule, read
    /// once, which decides whatever parameters the caller was made with (`update` changes it for every process
    /// at once; `o_stored` false: none is stored, the caller's decides; `o_floor`: a sliding window forgets what is
    /// at or before it), and the key's row (`o_held`) or a
    /// fresh one, brought under the name's updates made since it was written (`ratelimit_settle_v1`; `p_write`
    /// true writes it back, false only reads, `NULL` leaves the row as read).
    static let keyFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_key_v1(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_write boolean,
          OUT o_limit bigint, OUT o_window bigint, OUT o_burst bigint, OUT o_floor bigint, OUT o_version integer,
          OUT o_held boolean, OUT o_row ratelimit_keys, OUT o_stored boolean)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          small CONSTANT bigint := -9223372036854775808;
          stored record;
      BEGIN
          SELECT lim, win, burst, floor_at, version INTO stored FROM ratelimit_names WHERE name = p_name;
          o_stored := FOUND AND stored.win > 0;
          IF o_stored THEN
              o_limit := stored.lim;
              o_window := stored.win;
              o_burst := stored.burst;
              o_floor := coalesce(stored.floor_at, small);
          ELSE
              o_limit := p_limit;
              o_window := p_window;
              o_burst := p_burst;
              o_floor := small;
          END IF;
          o_version := coalesce(stored.version, 0);
          SELECT * INTO o_row FROM ratelimit_keys WHERE name = p_name AND key = p_key;
          o_held := FOUND;
          IF NOT o_held THEN
              o_row := ROW(p_name, p_key, small, small, '{}', '{}', '{}', '{}', 0, NULL, small, NULL, NULL, NULL, NULL);
              o_row.version := o_version;
          ELSIF o_row.version < o_version AND p_write IS NOT NULL THEN
              o_row := ratelimit_settle_v1(o_row, o_version, p_write);
          END IF;
      END
      $f$;
      """

    /// The database's clock in whole nanoseconds since the Unix epoch (microseconds on most servers).
    static let clockFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_clock() RETURNS bigint LANGUAGE sql VOLATILE AS
      $f$ SELECT (extract(epoch FROM clock_timestamp()) * 1000000000)::bigint $f$;
      """
  }
#endif
