#if Postgres
  /// 4.0's functions (schema version 3), kept as 4.0 wrote them but for the sweep (under each key's
  /// advisory lock) and the chunks (a key's bookings brought back into its row once its lock is held; a
  /// 4.0 `retryAfter`, which takes no lock, reads the row's latest bookings only), in one copy: the rolling-deploy tests build 4.0's `prepare()` from these (Tests'
  /// `Release40Schema`). During a rolling deploy a 4.0 instance keeps calling them
  /// against this release's table, so this release creates them too (its own are named `…_v4`). They work on the
  /// same rows: `cum` became `numeric[]`, which they read and write through PostgreSQL's implicit casts, and their
  /// booking ids (`next_id`, from 0) never meet this release's (a sequence from 2^40).
  extension Schema {
    /// The chunks' line in 4.0's functions, once the key's lock is held: its chunks back into its row, which is
    /// all 4.0 reads.
    static let release40Unchunk =
      "PERFORM ratelimit_unchunk_v1(p_name, p_key);  -- every booking in the row"

    /// One decision on one key: `tryAcquire` (mode 0), `reserve` (1) or `retryAfter` (2, reads only). Returns the
    /// instant the request is (or would be) booked for, the decision's "now", the booking's id, whether it was
    /// booked, and how many rows of other keys at rest it swept first (at most `p_sweep`: the automatic sweep
    /// rides on a decision, in the same statement).
    ///
    /// Sliding window: the earliest s >= now and >= the latest booking with the permits in (s - T, s] plus n at
    /// most N. Token bucket: Go's `x/time/rate`, credit in nanosecond-permits; the booking is not earlier than
    /// the latest one ahead (first come, first served). A booking later than now + maxDelay changes nothing.
    static let version3DecideFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_permits bigint,
          p_now bigint, p_max_delay bigint, p_mode integer, p_sweep integer,
          OUT o_time bigint, OUT o_now bigint, OUT o_id bigint, OUT o_booked boolean, OUT o_swept integer)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          big CONSTANT bigint := 9223372036854775807;
          r ratelimit_keys%ROWTYPE;
          n integer;
          i integer := 1;
          first integer;
          in_window bigint;
          deadline bigint;
          ts bigint[];
          ps bigint[];
          cs bigint[];
          lo integer;
          hi integer;
          mid integer;
          bound bigint;
          full_credit numeric;
          credit numeric;
          wait numeric;
      BEGIN
          o_booked := false;
          o_swept := 0;
          IF p_mode <> 2 THEN
              -- The key's lock first, then its row and "now": a decision never acts on an older state or "now"
              -- than the one before it. An advisory lock (held to the end of the transaction) writes nothing,
              -- where a row lock would write the row twice.
              PERFORM pg_advisory_xact_lock(ratelimit_lock_key(p_name, p_key));
              \(release40Unchunk)
          END IF;
          SELECT * INTO r FROM ratelimit_keys WHERE name = p_name AND key = p_key;
          IF NOT FOUND THEN
              r := ROW(p_name, p_key, -9223372036854775808, -9223372036854775808, '{}', '{}', '{}', '{}',
                       0, NULL, -9223372036854775808, NULL, NULL, NULL);
          END IF;
          o_now := greatest(coalesce(p_now, ratelimit_clock()), r.latest);
          IF p_sweep > 0 THEN
              -- Rows that only keys at rest hold, a bounded batch found by index; rows a decision holds are skipped.
              DELETE FROM ratelimit_keys WHERE ctid = ANY (ARRAY(
                  SELECT ctid FROM ratelimit_keys
                  WHERE name = p_name AND rest_at <= o_now AND key <> p_key
                      AND pg_try_advisory_xact_lock(ratelimit_lock_key(name, key))  -- see sweep()
                  LIMIT p_sweep FOR UPDATE SKIP LOCKED));
              GET DIAGNOSTICS o_swept = ROW_COUNT;
          END IF;
          deadline := least(o_now::numeric + coalesce(p_max_delay, big), big)::bigint;
          n := coalesce(array_length(r.times, 1), 0);
          IF p_burst IS NULL THEN
              -- Sliding window. Instants ascend: binary search for the first booking after now - T (those at or
              -- before it have left the window for good), then for the first one in (s - T, s].
              ts := r.times;
              ps := r.permits;
              cs := r.cum;
              bound := greatest(o_now::numeric - p_window, -9223372036854775808)::bigint;
              lo := 1; hi := n + 1;
              WHILE lo < hi LOOP
                  mid := (lo + hi) / 2;
                  IF ts[mid] <= bound THEN lo := mid + 1; ELSE hi := mid; END IF;
              END LOOP;
              first := lo;
              o_time := greatest(o_now, coalesce(ts[n], o_now));
              bound := greatest(o_time::numeric - p_window, -9223372036854775808)::bigint;
              hi := n + 1;
              WHILE lo < hi LOOP
                  mid := (lo + hi) / 2;
                  IF ts[mid] <= bound THEN lo := mid + 1; ELSE hi := mid; END IF;
              END LOOP;
              in_window := CASE WHEN lo <= n THEN cs[n] - cs[lo] + ps[lo] ELSE 0 END;
              -- Slide until enough of the oldest bookings have left: the oldest leaves at its instant + T.
              WHILE in_window + p_permits > p_limit AND lo <= n LOOP
                  o_time := least(ts[lo]::numeric + p_window, big)::bigint;
                  EXIT WHEN o_time = big;  -- the 292-year horizon
                  bound := greatest(o_time::numeric - p_window, -9223372036854775808)::bigint;
                  WHILE lo <= n AND ts[lo] <= bound LOOP lo := lo + 1; END LOOP;
                  in_window := CASE WHEN lo <= n THEN cs[n] - cs[lo] + ps[lo] ELSE 0 END;
              END LOOP;
              IF p_mode = 2 OR o_time > deadline THEN RETURN; END IF;
              r.times := ts[first:n] || o_time;
              r.permits := ps[first:n] || p_permits;
              r.cum := cs[first:n] || (coalesce(cs[n], 0) + p_permits);
              r.ids := r.ids[first:n] || r.next_id;
              r.rest_at := least(o_time::numeric + p_window, big)::bigint;
          ELSE
              -- Token bucket: bookings before now are granted and behind us.
              WHILE i <= n AND r.times[i] < o_now LOOP i := i + 1; END LOOP;
              first := i;
              full_credit := p_burst::numeric * p_window;
              credit := CASE WHEN r.tokens IS NULL OR r.tokens >= full_credit THEN full_credit
                  ELSE least(r.tokens + (o_now::numeric - least(r.last, o_now)) * p_limit, full_credit) END;
              credit := credit - p_permits::numeric * p_window;
              wait := CASE WHEN credit < 0 THEN div(-credit + p_limit - 1, p_limit) ELSE 0 END;
              o_time := greatest(least(o_now + wait, big)::bigint, coalesce(r.times[n], o_now));
              IF p_mode = 2 OR o_time > deadline THEN RETURN; END IF;
              r.before_tokens := r.tokens;
              r.before_last := r.last;
              r.before_id := r.next_id;
              r.tokens := credit;
              r.last := o_now;
              r.times := r.times[first:n] || o_time;
              r.permits := r.permits[first:n] || p_permits;
              r.ids := r.ids[first:n] || r.next_id;
              -- At rest once full again and nothing is booked at or after now.
              r.rest_at := greatest(
                  least(o_now + div(full_credit - credit + p_limit - 1, p_limit), big)::bigint,
                  least(o_time::numeric + 1, big)::bigint);
          END IF;
          o_booked := true;
          o_id := r.next_id;
          UPDATE ratelimit_keys SET latest = o_now, rest_at = r.rest_at, times = r.times, permits = r.permits,
              ids = r.ids, cum = r.cum, next_id = r.next_id + 1, tokens = r.tokens, last = r.last,
              before_tokens = r.before_tokens, before_last = r.before_last, before_id = r.before_id
              WHERE name = p_name AND key = p_key;
          IF NOT FOUND THEN
              -- A new key, or a row the sweep deleted since it was read (it was at rest, as fresh as this).
              r.latest := o_now;
              r.next_id := r.next_id + 1;
              INSERT INTO ratelimit_keys SELECT r.*;
          END IF;
      END
      $f$;
      """

    /// Gives a booking back, at or before its instant. Window: the booking leaves the log. Bucket: the credit
    /// comes back if no later booking of the key was made since (the bucket is then as if it had never been
    /// made); otherwise only the booking leaves the list ahead. After its instant, or a second time: nothing.
    static let version3CancelFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_cancel(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_id bigint, p_now bigint)
          RETURNS void
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          big CONSTANT bigint := 9223372036854775807;
          r ratelimit_keys%ROWTYPE;
          now_ bigint;
          at integer;
          n integer;
          full_credit numeric;
      BEGIN
          PERFORM pg_advisory_xact_lock(ratelimit_lock_key(p_name, p_key));
          \(release40Unchunk)
          SELECT * INTO r FROM ratelimit_keys WHERE name = p_name AND key = p_key;
          IF NOT FOUND THEN RETURN; END IF;
          now_ := greatest(coalesce(p_now, ratelimit_clock()), r.latest);
          at := array_position(r.ids, p_id);
          IF at IS NULL OR r.times[at] < now_ THEN RETURN; END IF;
          n := array_length(r.ids, 1);
          IF p_burst IS NOT NULL AND r.before_id IS NOT DISTINCT FROM p_id THEN
              r.tokens := r.before_tokens;
              r.last := r.before_last;
          END IF;
          IF p_burst IS NULL THEN
              -- Later running totals no longer count the booking.
              FOR j IN at + 1..n LOOP r.cum[j] := r.cum[j] - r.permits[at]; END LOOP;
              r.cum := r.cum[1:at - 1] || r.cum[at + 1:n];
          END IF;
          r.times := r.times[1:at - 1] || r.times[at + 1:n];
          r.permits := r.permits[1:at - 1] || r.permits[at + 1:n];
          r.ids := r.ids[1:at - 1] || r.ids[at + 1:n];
          n := n - 1;
          IF p_burst IS NULL THEN
              r.rest_at := CASE WHEN n = 0 THEN -9223372036854775808
                  ELSE least(r.times[n]::numeric + p_window, big)::bigint END;
          ELSE
              full_credit := p_burst::numeric * p_window;
              r.rest_at := greatest(
                  CASE WHEN r.tokens IS NULL OR r.tokens >= full_credit THEN -9223372036854775808
                      ELSE least(r.last + div(full_credit - r.tokens + p_limit - 1, p_limit), big)::bigint END,
                  CASE WHEN n = 0 THEN -9223372036854775808 ELSE least(r.times[n]::numeric + 1, big)::bigint END);
          END IF;
          UPDATE ratelimit_keys SET latest = now_, rest_at = r.rest_at, times = r.times, permits = r.permits,
              ids = r.ids, cum = r.cum, tokens = r.tokens, last = r.last, before_id = NULL
              WHERE name = p_name AND key = p_key;
      END
      $f$;
      """
  }
#endif
