#if Postgres
  /// A hot key's older bookings in chunks (`ratelimit_chunks`), so that a grant costs O(log N) in the
  /// bookings it holds, not O(N). A key's bookings are, in booking order, its chunks' (by `seq`) then its row's
  /// arrays (the tail). The tail holds the latest bookings and is never empty while the key holds a chunk, so
  /// whatever reads only the latest booking (`times[n]`: the instant of rest, a settle, the sweep) reads the row
  /// as before.
  ///
  /// | who | what it does with the chunks |
  /// |-----|-------------------------------|
  /// | a decision (`ratelimit_decide_v4`) | reads at most one chunk (found by index) for the permits in a window and the instant a request fits; a booking deletes the chunks wholly behind it; a tail of `2·B` bookings moves all but its latest `B` into chunks of `B` (`ratelimit_spill_v1`) |
  /// | a cancel of the tail's latest bookings (`ratelimit_cancel_v4`, `ratelimit_undo_v5`) | nothing |
  /// | any other change (an older booking cancelled, `charge`, `refund`, `reset`, a bucket's clock stepping back, 4.0's functions) | brings the chunks back into the row first (`ratelimit_unchunk_v1`, O(N), as every change was before) |
  /// | the sweep, a key deleted | its chunks go with it (`ON DELETE CASCADE`) |
  ///
  /// Measured (Benchmarks/README.md): a grant on a key holding 10,000 bookings costs what one on 30 does.
  extension Schema {
    /// Bookings a chunk holds (`B`); the tail holds `B` to `2·B − 1`.
    static let chunkSize = 16

    /// The chunks, and the count a key's row keeps of them (`NULL`: none; a row of an older release has none).
    /// For a sliding window `last_cum` is the running total at the chunk's latest booking (`cum` goes on across
    /// chunks and tail); a token bucket keeps no running totals (`cum` empty, `last_cum` NULL).
    static let chunksTable = """
      ALTER TABLE ratelimit_keys ADD COLUMN IF NOT EXISTS chunks integer;
      CREATE UNLOGGED TABLE IF NOT EXISTS ratelimit_chunks (
          name bytea NOT NULL,
          key bytea NOT NULL,
          seq bigint NOT NULL,
          last_at bigint NOT NULL,
          last_cum numeric,
          times bigint[] NOT NULL,
          permits bigint[] NOT NULL,
          ids bigint[] NOT NULL,
          cum numeric[] NOT NULL,
          PRIMARY KEY (name, key, seq),
          FOREIGN KEY (name, key) REFERENCES ratelimit_keys (name, key) ON DELETE CASCADE);
      CREATE INDEX IF NOT EXISTS ratelimit_chunks_at ON ratelimit_chunks (name, key, last_at, seq);
      CREATE INDEX IF NOT EXISTS ratelimit_chunks_cum ON ratelimit_chunks (name, key, last_cum);
      """

    /// Moves all but the latest `p_keep` bookings of a key's row into chunks of `p_keep`, once the key's lock is
    /// held and its row written (a decision calls it when the tail reaches `2·B`: once in `B` grants).
    static let spillFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_spill_v1(p_name bytea, p_key bytea, p_keep integer) RETURNS void
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          r ratelimit_keys%ROWTYPE;
          n integer;
          m integer;
          hi integer;
          s bigint;
          pieces integer := 0;
      BEGIN
          SELECT * INTO r FROM ratelimit_keys WHERE name = p_name AND key = p_key;
          n := coalesce(array_length(r.times, 1), 0);
          m := n - p_keep;
          IF NOT FOUND OR m <= 0 THEN RETURN; END IF;
          s := coalesce((SELECT max(seq) FROM ratelimit_chunks WHERE name = p_name AND key = p_key), 0);
          FOR lo IN 1..m BY p_keep LOOP
              hi := least(lo + p_keep - 1, m);
              s := s + 1;
              pieces := pieces + 1;
              INSERT INTO ratelimit_chunks (name, key, seq, last_at, last_cum, times, permits, ids, cum)
                  VALUES (p_name, p_key, s, r.times[hi], r.cum[hi], r.times[lo:hi], r.permits[lo:hi],
                      r.ids[lo:hi], r.cum[lo:hi]);
          END LOOP;
          UPDATE ratelimit_keys SET times = r.times[m + 1:n], permits = r.permits[m + 1:n], ids = r.ids[m + 1:n],
              cum = r.cum[m + 1:n], chunks = coalesce(r.chunks, 0) + pieces
              WHERE name = p_name AND key = p_key;
      END
      $f$;
      """

    /// Brings a key's chunks back into its row (every booking in the arrays again), under the key's lock: what a
    /// change to any booking but the latest ones needs first. O(N); does nothing to a key without chunks.
    static let unchunkFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_unchunk_v1(p_name bytea, p_key bytea) RETURNS void
      LANGUAGE plpgsql VOLATILE AS $f$
      BEGIN
          UPDATE ratelimit_keys k SET
              times = coalesce((SELECT array_agg(t ORDER BY c.seq, u.i) FROM ratelimit_chunks c,
                  unnest(c.times) WITH ORDINALITY AS u(t, i) WHERE c.name = p_name AND c.key = p_key), '{}')
                  || k.times,
              permits = coalesce((SELECT array_agg(p ORDER BY c.seq, u.i) FROM ratelimit_chunks c,
                  unnest(c.permits) WITH ORDINALITY AS u(p, i) WHERE c.name = p_name AND c.key = p_key), '{}')
                  || k.permits,
              ids = coalesce((SELECT array_agg(b ORDER BY c.seq, u.i) FROM ratelimit_chunks c,
                  unnest(c.ids) WITH ORDINALITY AS u(b, i) WHERE c.name = p_name AND c.key = p_key), '{}')
                  || k.ids,
              cum = coalesce((SELECT array_agg(s ORDER BY c.seq, u.i) FROM ratelimit_chunks c,
                  unnest(c.cum) WITH ORDINALITY AS u(s, i) WHERE c.name = p_name AND c.key = p_key), '{}')
                  || k.cum,
              chunks = NULL
              WHERE name = p_name AND key = p_key AND coalesce(chunks, 0) > 0;
          IF FOUND THEN
              DELETE FROM ratelimit_chunks WHERE name = p_name AND key = p_key;
          END IF;
      END
      $f$;
      """

    /// Brings a key's chunks back into its row when cancelling booking `p_id` needs it: the booking is in a chunk,
    /// or it is the tail's only one (the tail is never empty while the key holds a chunk). Returns whether it did.
    /// Cancelling one of the tail's latest bookings (a revocation, a give-back) leaves the chunks alone.
    static let unchunkForFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_unchunk_for_v1(p_name bytea, p_key bytea, p_id bigint) RETURNS boolean
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          r ratelimit_keys%ROWTYPE;
          at integer;
      BEGIN
          SELECT * INTO r FROM ratelimit_keys WHERE name = p_name AND key = p_key;
          IF NOT FOUND OR coalesce(r.chunks, 0) = 0 THEN RETURN false; END IF;
          at := array_position(r.ids, p_id);
          IF at IS NOT NULL AND array_length(r.ids, 1) > 1 THEN RETURN false; END IF;
          IF at IS NULL AND NOT EXISTS (SELECT 1 FROM ratelimit_chunks
                  WHERE name = p_name AND key = p_key AND p_id = ANY (ids)) THEN
              RETURN false;
          END IF;
          PERFORM ratelimit_unchunk_v1(p_name, p_key);
          RETURN true;
      END
      $f$;
      """

    /// Whether a key's row is still the one a read without its lock took (`p_chunks`, `p_ids`): every change
    /// to a key's chunks (a spill, chunks leaving, `ratelimit_unchunk_v1`) books, moves or gives back a booking in
    /// the same transaction, so an unchanged row means that the chunk read after it belonged to the same state.
    static let unchangedFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_unchanged_v1(p_name bytea, p_key bytea, p_chunks integer, p_ids bigint[])
      RETURNS boolean
      LANGUAGE sql STABLE AS
      $f$ SELECT EXISTS (SELECT 1 FROM ratelimit_keys WHERE name = p_name AND key = p_key
              AND chunks IS NOT DISTINCT FROM p_chunks AND ids = p_ids) $f$;
      """

    /// A sliding window's bookings at or before `p_bound`, for a key whose tail starts after it: the running
    /// total at the latest of them (`o_before`; NULL when every chunk is at or before the bound, so that the
    /// tail's first booking is the first after it), and the instant of the first booking after it (`o_next`).
    /// One chunk, found by index: O(log N + B).
    static let chunkBeforeFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_chunk_before_v1(
          p_name bytea, p_key bytea, p_bound bigint, OUT o_before numeric, OUT o_next bigint)
      LANGUAGE plpgsql STABLE AS $f$
      DECLARE
          c ratelimit_chunks%ROWTYPE;
          lo integer := 1;
          hi integer;
          mid integer;
      BEGIN
          SELECT * INTO c FROM ratelimit_chunks WHERE name = p_name AND key = p_key AND last_at > p_bound
              ORDER BY last_at, seq LIMIT 1;
          IF NOT FOUND THEN RETURN; END IF;
          hi := array_length(c.times, 1);
          WHILE lo < hi LOOP
              mid := (lo + hi) / 2;
              IF c.times[mid] <= p_bound THEN lo := mid + 1; ELSE hi := mid; END IF;
          END LOOP;
          o_before := c.cum[lo] - c.permits[lo];
          o_next := c.times[lo];
      END
      $f$;
      """

    /// A sliding window's first booking, in booking order, whose running total reaches `p_target`, for a key
    /// whose chunks hold it (the total before the tail reaches it): its instant. O(log N + B).
    static let chunkReachingFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_chunk_reaching_v1(p_name bytea, p_key bytea, p_target numeric)
      RETURNS bigint
      LANGUAGE plpgsql STABLE AS $f$
      DECLARE
          c ratelimit_chunks%ROWTYPE;
          lo integer := 1;
          hi integer;
          mid integer;
      BEGIN
          SELECT * INTO c FROM ratelimit_chunks WHERE name = p_name AND key = p_key AND last_cum >= p_target
              ORDER BY last_cum LIMIT 1;
          hi := array_length(c.cum, 1);
          WHILE lo < hi LOOP
              mid := (lo + hi) / 2;
              IF c.cum[mid] < p_target THEN lo := mid + 1; ELSE hi := mid; END IF;
          END LOOP;
          RETURN c.times[lo];
      END
      $f$;
      """
  }
#endif
