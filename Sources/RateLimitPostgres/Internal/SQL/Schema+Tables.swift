#if Postgres
  /// The tables, and what each release added to them: the release list (`ratelimit_schema`, `ratelimit_release`,
  /// in `prepare`), each name's rule (`ratelimit_names`), each key's state (`ratelimit_keys`), release 10's blocks and
  /// window floor, release 11's update numbers (`ratelimit_updates`), release 13's uncompressed bookings (release
  /// 14's chunks are in `Schema+Chunks.swift`); and the two helpers every function uses, a key's advisory lock and
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

    /// The columns release 10 adds, to tables of any earlier release.
    static let release10Columns = """
      ALTER TABLE ratelimit_keys ADD COLUMN IF NOT EXISTS blocked_until bigint;
      ALTER TABLE ratelimit_names ADD COLUMN IF NOT EXISTS floor_at bigint;
      """

    /// The columns, table and trigger release 11 adds, to tables of any earlier release.
    static let release11Objects = """
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

    /// Release 13: a key's bookings are stored as they are, never compressed (`STORAGE EXTERNAL`, out of line once
    /// the row is large). A grant rewrites the key's arrays; compressed, a hot key's grant was linear at about 2 µs
    /// a booking (7 ms at 3,000 bookings held, 22 ms at 10,100), nearly all of it TOAST's compression; stored as
    /// they are, 0.6 ms and 1.6 ms (Benchmarks/README.md). Changes no row (a row written before is compressed until
    /// its next write) and nothing an older release reads: storage is the database's business.
    static let release13Storage = """
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

    /// The database's clock in whole nanoseconds since the Unix epoch (microseconds on most servers).
    static let clockFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_clock() RETURNS bigint LANGUAGE sql VOLATILE AS
      $f$ SELECT (extract(epoch FROM clock_timestamp()) * 1000000000)::bigint $f$;
      """
  }
#endif
