#if Postgres
  /// A decision (`ratelimit_decide_v4`), which reports the key after it, and the sweep. The rules
  /// are `RateLimiter`'s (SlidingWindow.swift and TokenBucket.swift in the core, in whole nanoseconds), kept here in
  /// PL/pgSQL: a change to one is a change to the other, and the replay tests hold both to the same answers. Sums and
  /// products are `numeric`, so nothing overflows; instants saturate at the 292-year horizon as in Swift. A clock that
  /// steps back: a sliding window's "now" never goes below the key's latest (`PostgresRateLimiter` sends `.clock(c)`'s
  /// readings on a time line that never goes back, as `RateLimiter` keeps them, so with `c` no step reaches the
  /// database); a token bucket takes the step in as Go's does. A batch reads the database's clock once it
  /// holds its keys' locks, so a reading behind a key's latest is a step of the clock, never a race. The store kit
  /// (Tests/RateLimitStoreKit) holds both rules, here and in Swift, to one set of answers.
  extension Schema {
    /// One decision on one key: `tryAcquire` and `decide` (mode 0), `reserve` (1) or `retryAfter` (2, reads
    /// only, takes no lock; 4, the same without the effective window, the read that window itself makes).
    /// Returns the instant the request is (or would be) booked for, the decision's "now", the booking's id (from
    /// `ratelimit_booking_ids`: never repeated), whether it was booked, how many rows of keys at rest it swept
    /// (after writing its own row, `SKIP LOCKED`: a sweep never waits on a decision), the key after it
    /// (`remaining` permits, the instant it is at rest, its effective window), and the rule that decided: the
    /// name's stored rule (`NULL`s: none stored, the caller's decided) and the database's clock at the end.
    /// Everything in one pass: the stored rule and the key's row are read once.
    ///
    /// The effective window (SPEC 4.2's correction of `t`, `RateLimitDecision.effectiveWindow`, the twin of
    /// `effectiveWindow(at:in:)` of `SlidingWindow` and `TokenBucket` in the core): once the key's remaining
    /// permits are taken now, nanoseconds until one more comes; with none remaining (a block, a booking ahead,
    /// debt), the wait for one permit, as `retryAfter(1)` reads it (a mode-4 read).
    ///
    /// `p_id`, when given, is the booking's id, chosen by the caller (a random 63-bit number above the
    /// sequence's range): a caller that gave up waiting revokes it (`ratelimit_revoke_v4`), and a decision
    /// whose id was revoked books nothing, whichever of the two the database runs first (no phantom booking).
    ///
    /// `p_lock_timeout` bounds the wait for the key's lock (`SET LOCAL lock_timeout`), so that a blocked key
    /// answers 55P03 before the caller's `timeout` and gives its connection back.
    static let decideFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide_v4(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_permits bigint,
          p_now bigint, p_max_delay bigint, p_mode integer, p_sweep integer, p_lock_timeout text, p_id bigint,
          OUT o_time bigint, OUT o_now bigint, OUT o_id bigint, OUT o_booked boolean, OUT o_swept integer,
          OUT o_remaining bigint, OUT o_rest_at bigint, OUT o_effective bigint,
          OUT o_lim bigint, OUT o_win bigint, OUT o_burst bigint, OUT o_clock bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          big CONSTANT bigint := 9223372036854775807;
          small CONSTANT bigint := -9223372036854775808;
          r record;  -- not %ROWTYPE: that locks the table as the function compiles, before lock_timeout
          n integer;
          i integer := 1;
          first integer;
          in_window numeric;
          deadline bigint;
          ts bigint[];
          ps bigint[];
          cs numeric[];
          lo integer;
          hi integer;
          mid integer;
          bound bigint;
          before numeric;
          target numeric;
          gone integer;
          chunk record;
          chunk_read boolean := false;
          d record;
          full_credit numeric;
          credit numeric;
          wait numeric;
          jump numeric;
          pre record;
          floor_ bigint;
          at_ bigint;
          blocked boolean;
          next_ bigint;
      BEGIN
          o_booked := false;
          o_swept := 0;
          PERFORM ratelimit_lock_v1(p_lock_timeout,
              CASE WHEN p_mode < 2 THEN ARRAY[ratelimit_lock_key(p_name, p_key)] ELSE '{}' END, true);
          -- The stored rule and the key, brought under the name's updates (a read writes nothing).
          pre := ratelimit_key_v1(p_name, p_key, p_limit, p_window, p_burst, p_mode < 2);
          p_limit := pre.o_limit;
          p_window := pre.o_window;
          p_burst := pre.o_burst;
          floor_ := pre.o_floor;
          r := pre.o_row;
          o_now := coalesce(p_now, ratelimit_clock());
          IF p_burst IS NULL OR p_now IS NULL THEN
              -- "Now" never goes behind the key's latest (a sliding window's `.clock(c)` readings come on a time
              -- line that never goes back: PostgresRateLimiter.nowSent). A batch or a joint decision reads the
              -- database's clock once it holds its keys' locks, so its "now" is never behind either.
              o_now := greatest(o_now, r.latest);
          ELSIF o_now < r.latest THEN
              -- Token bucket, `.clock(c)` stepped back since the key's latest decision: as Go's, the credit counts
              -- no time from `last` (below) until a booking takes the step in, and the bookings ahead move back
              -- with the clock (TokenBucket.clockWentBack in the core).
              IF coalesce(r.chunks, 0) > 0 AND p_mode < 2 THEN
                  -- Every booking moves back, the chunks' too (a read moves only the tail's).
                  PERFORM ratelimit_unchunk_v1(p_name, p_key);
                  SELECT * INTO r FROM ratelimit_keys WHERE name = p_name AND key = p_key;
              END IF;
              jump := r.latest::numeric - o_now;
              r.times := ARRAY(SELECT greatest(t - jump, small)::bigint FROM unnest(r.times) AS t);
          END IF;
          deadline := least(o_now::numeric + coalesce(p_max_delay, big), big)::bigint;
          -- A blocked key books as the same request made at the block's end, and has nothing left.
          blocked := coalesce(r.blocked_until, small) > o_now;
          at_ := CASE WHEN blocked THEN r.blocked_until ELSE o_now END;
          n := coalesce(array_length(r.times, 1), 0);
          IF p_burst IS NULL THEN
              -- Sliding window: the permits in (s - T, s] are the running total at the latest booking minus the
              -- one at the latest booking at or before s - T (binary search in the tail, or in the one chunk that
              -- holds it). A request that does not fit at s is booked when enough have left: at the
              -- first booking whose running total reaches the latest one + n - N, plus T (the oldest leaves at
              -- its instant + T). A booking forgets what is at or before now - T, not the block's end
              -- - T (a booking made during a block forgot bookings still ahead).
              ts := r.times;
              ps := r.permits;
              cs := r.cum;
              o_time := greatest(at_, coalesce(ts[n], at_));
              bound := greatest(o_time::numeric - p_window, floor_)::bigint;
              \(windowBefore(bound: "bound", into: "before"))
              in_window := CASE WHEN n > 0 THEN cs[n] - before ELSE 0 END;
              IF in_window + p_permits > p_limit AND n > 0 THEN
                  target := cs[n] + p_permits - p_limit;
                  IF coalesce(r.chunks, 0) > 0 AND cs[1] - ps[1] >= target THEN
                      o_time := ratelimit_chunk_reaching_v1(p_name, p_key, target);
                      chunk_read := true;
                  ELSE
                      lo := 1; hi := n;
                      WHILE lo < hi LOOP
                          mid := (lo + hi) / 2;
                          IF cs[mid] < target THEN lo := mid + 1; ELSE hi := mid; END IF;
                      END LOOP;
                      o_time := ts[lo];
                  END IF;
                  o_time := least(o_time::numeric + p_window, big)::bigint;
              END IF;
              IF p_mode < 2 AND o_time <= deadline AND NOT ratelimit_revoked_v4(p_id) THEN
                  o_booked := true;
                  o_id := coalesce(p_id, nextval('ratelimit_booking_ids'));
                  -- What is at or before now - T goes: whole chunks, and the tail's once no chunk is left.
                  bound := greatest(o_now::numeric - p_window, floor_)::bigint;
                  IF coalesce(r.chunks, 0) > 0 THEN
                      DELETE FROM ratelimit_chunks WHERE name = p_name AND key = p_key AND last_at <= bound;
                      GET DIAGNOSTICS gone = ROW_COUNT;
                      r.chunks := nullif(r.chunks - gone, 0);
                  END IF;
                  lo := 1; hi := n + 1;
                  WHILE lo < hi AND r.chunks IS NULL LOOP
                      mid := (lo + hi) / 2;
                      IF ts[mid] <= bound THEN lo := mid + 1; ELSE hi := mid; END IF;
                  END LOOP;
                  r.times := ts[lo:n] || o_time;
                  r.permits := ps[lo:n] || p_permits;
                  r.cum := cs[lo:n] || (coalesce(cs[n], 0) + p_permits);
                  r.ids := r.ids[lo:n] || o_id;
                  r.rest_at := least(o_time::numeric + p_window, big)::bigint;
              END IF;
              -- The key after the decision: N minus the permits in (now - T, now], none while one is ahead.
              ts := r.times;
              ps := r.permits;
              cs := r.cum;
              n := coalesce(array_length(ts, 1), 0);
              IF blocked OR (n > 0 AND ts[n] > o_now) THEN
                  o_remaining := 0;
              ELSE
                  bound := greatest(o_now::numeric - p_window, floor_)::bigint;
                  \(windowBefore(bound: "bound", into: "before"))
                  in_window := CASE WHEN n > 0 THEN cs[n] - before ELSE 0 END;
                  o_remaining := greatest(p_limit - in_window, 0);
                  IF o_remaining > 0 THEN
                      -- Once the permits remaining are taken, one more comes when the first booking in the
                      -- window leaves: in the tail, or in the chunk that held the total before it.
                      IF lo > n THEN
                          next_ := NULL;
                      ELSIF lo > 1 OR coalesce(r.chunks, 0) = 0 THEN
                          next_ := ts[lo];
                      ELSE
                          next_ := coalesce(chunk.o_next, ts[1]);
                      END IF;
                      o_effective := CASE WHEN next_ IS NOT NULL
                          THEN least(next_::numeric + p_window, big) - o_now ELSE p_window END;
                  END IF;
              END IF;
              o_rest_at := CASE WHEN n > 0 AND ts[n] > floor_ THEN least(ts[n]::numeric + p_window, big)::bigint
                  ELSE small END;
          ELSE
              -- Token bucket (Go's x/time/rate, credit in nanosecond-permits): bookings before now are behind us
              -- (now, not the block's end).
              WHILE i <= n AND r.times[i] < o_now LOOP i := i + 1; END LOOP;
              first := i;
              full_credit := p_burst::numeric * p_window;
              credit := CASE WHEN r.tokens IS NULL OR r.tokens >= full_credit THEN full_credit
                  ELSE least(r.tokens + (at_::numeric - least(r.last, at_)) * p_limit, full_credit) END;
              wait := credit - p_permits::numeric * p_window;
              wait := CASE WHEN wait < 0 THEN div(-wait + p_limit - 1, p_limit) ELSE 0 END;
              o_time := greatest(least(at_ + wait, big)::bigint, coalesce(r.times[n], at_));
              IF p_mode < 2 AND o_time <= deadline AND NOT ratelimit_revoked_v4(p_id) THEN
                  o_booked := true;
                  o_id := coalesce(p_id, nextval('ratelimit_booking_ids'));
                  IF coalesce(r.chunks, 0) > 0 THEN
                      -- Chunks wholly before now go.
                      DELETE FROM ratelimit_chunks WHERE name = p_name AND key = p_key AND last_at < o_now;
                      GET DIAGNOSTICS gone = ROW_COUNT;
                      r.chunks := nullif(r.chunks - gone, 0);
                  END IF;
                  r.before_tokens := r.tokens;
                  r.before_last := r.last;
                  r.before_id := o_id;
                  credit := credit - p_permits::numeric * p_window;
                  r.tokens := credit;
                  r.last := at_;
                  -- A grant for now by `tryAcquire`/`decide` (mode 0) is not kept in the list ahead,
                  -- as `RateLimiter`'s is not (a revocation takes it back by the snapshot above).
                  IF o_time > o_now OR p_mode = 1 THEN
                      r.times := r.times[first:n] || o_time;
                      r.permits := r.permits[first:n] || p_permits;
                      r.ids := r.ids[first:n] || o_id;
                  ELSE
                      r.times := r.times[first:n];
                      r.permits := r.permits[first:n];
                      r.ids := r.ids[first:n];
                  END IF;
                  r.rest_at := greatest(
                      least(at_ + div(full_credit - credit + p_limit - 1, p_limit), big)::bigint,
                      least(o_time::numeric + 1, big)::bigint);
              END IF;
              -- The key after the decision: whole permits in the bucket, none while one is ahead.
              n := coalesce(array_length(r.times, 1), 0);
              IF blocked OR (n > 0 AND r.times[n] > o_now) THEN
                  o_remaining := 0;
              ELSE
                  o_remaining := least(greatest(floor(credit / p_window), 0), p_burst);
                  IF o_remaining > 0 THEN
                      -- Once the whole permits are taken, the time the fraction left needs to make one more.
                      o_effective := div(p_window - (credit - o_remaining * p_window) + p_limit - 1, p_limit);
                  END IF;
              END IF;
              o_rest_at := greatest(
                  CASE WHEN credit >= full_credit THEN small
                      ELSE least(at_ + div(full_credit - credit + p_limit - 1, p_limit), big)::bigint END,
                  CASE WHEN n > 0 AND r.times[n] >= o_now THEN least(r.times[n]::numeric + 1, big)::bigint
                      ELSE small END);
          END IF;
          -- A blocked key is not at rest before its block ends.
          o_rest_at := greatest(o_rest_at, coalesce(r.blocked_until, small));
          IF o_booked THEN
              UPDATE ratelimit_keys SET latest = o_now, rest_at = r.rest_at, times = r.times, permits = r.permits,
                  ids = r.ids, cum = r.cum, tokens = r.tokens, last = r.last, before_tokens = r.before_tokens,
                  before_last = r.before_last, before_id = r.before_id, chunks = r.chunks
                  WHERE name = p_name AND key = p_key;
              IF NOT FOUND THEN
                  -- A new key, or a row the sweep deleted since it was read (it was at rest, as fresh as this).
                  r.latest := o_now;
                  r.chunks := NULL;
                  INSERT INTO ratelimit_keys SELECT r.*;
              END IF;
              IF coalesce(array_length(r.times, 1), 0) >= 2 * \(chunkSize) THEN
                  PERFORM ratelimit_spill_v1(p_name, p_key, \(chunkSize));
              END IF;
          END IF;
          IF p_mode >= 2 AND chunk_read AND NOT ratelimit_unchanged_v1(p_name, p_key, r.chunks, r.ids) THEN
              -- A read takes no lock (and changes neither `r.chunks` nor `r.ids`); if a decision
              -- changed the key's row and chunks between the statements that read a chunk and the row, read again
              -- (a decision never answers from two states).
              d := ratelimit_decide_v4(p_name, p_key, p_limit, p_window, p_burst, p_permits, p_now, p_max_delay,
                  p_mode, 0, NULL, p_id);
              o_time := d.o_time;
              o_now := d.o_now;
              o_remaining := d.o_remaining;
              o_rest_at := d.o_rest_at;
              o_effective := d.o_effective;
          ELSIF o_effective IS NULL AND p_mode <> 4 THEN
              -- None remaining: the wait for one permit, as `retryAfter(1)` reads it.
              d := ratelimit_decide_v4(p_name, p_key, p_limit, p_window, p_burst, 1, o_now, NULL, 4, 0, NULL, NULL);
              o_effective := greatest(d.o_time - d.o_now, 0);
          END IF;
          IF p_sweep > 0 THEN
              -- After the own row is written: rows that only keys at rest hold, a bounded batch found by index;
              -- rows a decision holds are skipped, so a sweep never waits on one (nor one on it, in a cycle).
              \(sweep(restBy: "o_now", except: "key <> p_key", counting: "o_swept"))
          END IF;
          IF pre.o_stored THEN
              o_lim := p_limit;
              o_win := p_window;
              o_burst := p_burst;
          END IF;
          o_clock := ratelimit_clock();
      END
      $f$;
      """

    /// PL/pgSQL that sets `into` to a sliding window's running total at its latest booking at or before `bound`
    /// (the total before its first booking when none is), from the tail `ts`, `ps`, `cs` (`n` bookings) of row
    /// `r`, or from the one chunk that holds it when the tail starts after `bound`; NULL when the key
    /// holds no booking. Uses `lo`, `hi`, `mid` and `chunk`, and sets `chunk_read` when it reads a chunk.
    static func windowBefore(bound: String, into before: String) -> String {
      """
      lo := 1; hi := n + 1;
                      WHILE lo < hi LOOP
                          mid := (lo + hi) / 2;
                          IF ts[mid] <= \(bound) THEN lo := mid + 1; ELSE hi := mid; END IF;
                      END LOOP;
                      IF lo > n THEN
                          \(before) := cs[n];
                      ELSIF lo > 1 OR coalesce(r.chunks, 0) = 0 THEN
                          \(before) := cs[lo] - ps[lo];
                      ELSE
                          chunk := ratelimit_chunk_before_v1(p_name, p_key, \(bound));
                          chunk_read := true;
                          \(before) := coalesce(chunk.o_before, cs[1] - ps[1]);
                      END IF;
      """
    }

    /// The sweep a decision ends with, once its own rows are written: up to `p_sweep` rows of `p_name` whose keys
    /// are at rest by `now` and that `except` keeps, found by index; rows another session holds are skipped
    /// (`SKIP LOCKED`), so a sweep never waits on a decision. The rows deleted go into `counting`.
    ///
    /// A row is deleted only under its key's advisory lock, taken without waiting: a key another
    /// session is deciding is never swept under it. A batch reads its clock once it holds its keys' locks and
    /// before it reads their rows; 4.1's sweep, at a later "now" of its own, could delete a row in between whose
    /// booking still counted at the batch's "now", and the batch granted the key as fresh (52 over-admissions in
    /// 26,850 grants). A sweep that deleted a key's row before a decision took the key's lock read its own clock
    /// before that, so the decision's "now" is never behind the instant the row was at rest.
    ///
    /// A row not yet brought under its name's latest updates (`ratelimit_settle_v1`) is at rest only
    /// if it still is once brought (a read, nothing written): an update that slowed a bucket's refill or made a
    /// window longer keeps such a key until its new instant of rest.
    static func sweep(restBy now: String, except: String, counting: String) -> String {
      """
      DELETE FROM ratelimit_keys WHERE ctid = ANY (ARRAY(
                      SELECT ctid FROM ratelimit_keys k
                      WHERE name = p_name AND rest_at <= \(now) AND \(except)
                          AND coalesce(blocked_until, -9223372036854775808) <= \(now)
                          AND \(settledAtRest(by: now))
                          AND pg_try_advisory_xact_lock(ratelimit_lock_key(name, key))
                      LIMIT p_sweep FOR UPDATE SKIP LOCKED));
                  GET DIAGNOSTICS \(counting) = ROW_COUNT;
      """
    }

    /// The condition, on row `k` of `p_name` whose `rest_at` is at or before `now`, that it is at rest under the
    /// name's latest rule too (see ``sweep(restBy:except:counting:)``).
    static func settledAtRest(by now: String) -> String {
      """
      (k.version >= (SELECT version FROM ratelimit_names WHERE name = p_name)
                              OR (ratelimit_settle_v1(k, (SELECT version FROM ratelimit_names WHERE name = p_name),
                                  false)).rest_at <= \(now))
      """
    }

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
