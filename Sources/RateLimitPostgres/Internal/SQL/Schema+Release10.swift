#if Postgres
  /// Release 10 (4.2): operating a key and a name's rule. Each key may be blocked until an instant
  /// (`ratelimit_keys.blocked_until`, `NULL`: none), and each name keeps the rule every process decides by
  /// (`ratelimit_names`, which `update` changes; `floor_at`: a sliding window forgets the bookings at or before it,
  /// those that had left the window when an update made it longer). `ratelimit_decide_v4` and
  /// `ratelimit_effective_v1` read both since release 10, so every older function that calls them (joint
  /// decisions, batches) follows them too; an older process's own rows stay readable (the new columns are
  /// nullable). The rules are the core's (`PermitBook+Operations.swift`, `SlidingWindow+Operations.swift`,
  /// `TokenBucket+Operations.swift`, the `+Update.swift` files), in whole nanoseconds.
  extension Schema {
    /// The columns release 10 adds, to tables of any earlier release.
    static let release10Columns = """
      ALTER TABLE ratelimit_keys ADD COLUMN IF NOT EXISTS blocked_until bigint;
      ALTER TABLE ratelimit_names ADD COLUMN IF NOT EXISTS floor_at bigint;
      """

    /// `peek`: exactly what a decision would answer now (`ratelimit_decide_v4`, mode 0, and the key's effective
    /// window after it), made in a subtransaction that is then rolled back: no row is left written, no key
    /// swept, nothing taken. One round trip.
    static let peekFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_peek_v1(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_permits bigint,
          p_now bigint, p_lock_timeout text,
          OUT o_booked boolean, OUT o_time bigint, OUT o_now bigint, OUT o_remaining bigint,
          OUT o_rest_at bigint, OUT o_effective bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          d record;
      BEGIN
          BEGIN
              d := ratelimit_decide_v4(p_name, p_key, p_limit, p_window, p_burst, p_permits, p_now, 0, 0, 0,
                  p_lock_timeout, NULL);
              o_booked := d.o_booked;
              o_time := d.o_time;
              o_now := d.o_now;
              o_remaining := d.o_remaining;
              o_rest_at := d.o_rest_at;
              o_effective := ratelimit_effective_v1(p_name, p_key, p_limit, p_window, p_burst, d.o_now);
              RAISE EXCEPTION USING ERRCODE = 'RLPK1';
          EXCEPTION WHEN SQLSTATE 'RLPK1' THEN
              NULL;  -- the decision is rolled back; the answers stay
          END;
      END
      $f$;
      """

    /// Operates a key under its advisory lock (`p_op`): 1 charge `p_amount` permits, 2 refund up to `p_amount`,
    /// 3 reset, 4 block for `p_amount` nanoseconds, 5 block for `p_amount` nanoseconds unless a block is in force
    /// (a middleware's penalty: the refusals of a block never extend it). Reports the key after as `ratelimit_undo_v5` does (the wait
    /// for one permit, "now", what is left, when it is at rest, its effective window). A refund or reset of a
    /// key without a row does nothing; a charge or block makes one.
    static let operateFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_operate_v1(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_op integer,
          p_amount bigint, p_now bigint, p_lock_timeout text,
          OUT o_time bigint, OUT o_now bigint, OUT o_remaining bigint, OUT o_rest_at bigint,
          OUT o_effective bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          big CONSTANT bigint := 9223372036854775807;
          small CONSTANT bigint := -9223372036854775808;
          r ratelimit_keys%ROWTYPE;
          stored record;
          floor_ bigint := small;
          held boolean;
          changed boolean := false;
          now_ bigint;
          n integer;
          k integer;
          left_ numeric;
          take numeric;
          full_credit numeric;
          credit numeric;
          raised numeric;
          instant bigint;
          ahead numeric;
          d record;
      BEGIN
          IF p_lock_timeout IS NOT NULL THEN
              PERFORM set_config('lock_timeout', p_lock_timeout, true);
          END IF;
          PERFORM pg_advisory_xact_lock(ratelimit_lock_key(p_name, p_key));
          SELECT lim, win, burst, floor_at, version INTO stored FROM ratelimit_names WHERE name = p_name;
          IF FOUND AND stored.win > 0 THEN
              p_limit := stored.lim;
              p_window := stored.win;
              p_burst := stored.burst;
              floor_ := coalesce(stored.floor_at, small);
          END IF;
          SELECT * INTO r FROM ratelimit_keys WHERE name = p_name AND key = p_key;
          held := FOUND;
          IF NOT held THEN
              r := ROW(p_name, p_key, small, small, '{}', '{}', '{}', '{}', 0, NULL, small, NULL, NULL, NULL, NULL);
              r.version := coalesce(stored.version, 0);
          ELSIF r.version < coalesce(stored.version, 0) THEN
              r := ratelimit_settle_v1(r, stored.version, true);
          END IF;
          now_ := coalesce(p_now, ratelimit_clock());
          IF p_burst IS NULL OR p_now IS NULL THEN
              now_ := greatest(now_, r.latest);
          END IF;
          n := coalesce(array_length(r.times, 1), 0);
          full_credit := coalesce(p_burst, 0)::numeric * p_window;
          IF p_burst IS NULL AND p_op IN (1, 2) THEN
              -- A window first forgets what has left it.
              k := 1;
              WHILE k <= n AND r.times[k] <= greatest(now_::numeric - p_window, floor_) LOOP k := k + 1; END LOOP;
              IF k > 1 THEN
                  r.times := r.times[k:n];
                  r.permits := r.permits[k:n];
                  r.ids := r.ids[k:n];
                  n := n - k + 1;
                  changed := true;
              END IF;
          END IF;
          IF p_op = 1 AND p_amount > 0 THEN
              changed := true;
              IF p_burst IS NULL THEN
                  -- Behind the bookings at or before now, ahead of those after it.
                  k := 1;
                  WHILE k <= n AND r.times[k] <= now_ LOOP k := k + 1; END LOOP;
                  r.times := r.times[1:k - 1] || now_ || r.times[k:n];
                  r.permits := r.permits[1:k - 1] || p_amount || r.permits[k:n];
                  r.ids := r.ids[1:k - 1] || nextval('ratelimit_booking_ids') || r.ids[k:n];
                  n := n + 1;
              ELSE
                  instant := greatest(now_, r.last);
                  credit := CASE WHEN r.tokens IS NULL OR r.tokens >= full_credit THEN full_credit
                      ELSE least(r.tokens + (instant::numeric - least(r.last, instant)) * p_limit, full_credit) END;
                  r.tokens := credit - p_amount::numeric * p_window;
                  r.last := instant;
                  -- The latest booking's snapshot takes the charge too: cancelled, the booking gives back as if
                  -- the charge had been made without it (SPEC 4.2).
                  IF r.before_id IS NOT NULL THEN
                      credit := CASE WHEN r.before_tokens IS NULL OR r.before_tokens >= full_credit THEN full_credit
                          ELSE least(r.before_tokens + (instant::numeric - least(r.before_last, instant)) * p_limit,
                              full_credit) END;
                      r.before_tokens := credit - p_amount::numeric * p_window;
                      r.before_last := instant;
                  END IF;
              END IF;
          ELSIF p_op = 2 AND p_amount > 0 AND held THEN
              IF p_burst IS NULL THEN
                  -- The bookings at or before now shrink or go, the latest first.
                  left_ := p_amount;
                  k := n;
                  WHILE k >= 1 AND r.times[k] > now_ LOOP k := k - 1; END LOOP;
                  WHILE k >= 1 AND left_ > 0 LOOP
                      take := least(left_, r.permits[k]);
                      r.permits[k] := r.permits[k] - take;
                      left_ := left_ - take;
                      k := k - 1;
                      changed := true;
                  END LOOP;
              ELSE
                  instant := greatest(now_, r.last);
                  ahead := coalesce((SELECT sum(p) FROM unnest(r.times, r.permits) AS u(t, p) WHERE t > now_), 0);
                  credit := CASE WHEN r.tokens IS NULL OR r.tokens >= full_credit THEN full_credit
                      ELSE least(r.tokens + (instant::numeric - least(r.last, instant)) * p_limit, full_credit) END;
                  raised := least(credit + p_amount::numeric * p_window, full_credit - ahead * p_window);
                  IF credit < raised THEN
                      r.tokens := raised;
                      r.last := instant;
                      changed := true;
                  END IF;
                  -- The latest booking's snapshot takes the refund too, under its own cap (the bookings ahead
                  -- but that one): cancelled, the booking gives back as if it had never been made.
                  IF r.before_id IS NOT NULL THEN
                      ahead := ahead - coalesce((SELECT sum(p) FROM unnest(r.times, r.permits, r.ids) AS u(t, p, b)
                          WHERE b = r.before_id AND t > now_), 0);
                      credit := CASE WHEN r.before_tokens IS NULL OR r.before_tokens >= full_credit THEN full_credit
                          ELSE least(r.before_tokens + (instant::numeric - least(r.before_last, instant)) * p_limit,
                              full_credit) END;
                      raised := least(credit + p_amount::numeric * p_window, full_credit - ahead * p_window);
                      IF credit < raised THEN
                          r.before_tokens := raised;
                          r.before_last := instant;
                          changed := true;
                      END IF;
                  END IF;
              END IF;
          ELSIF p_op = 3 AND held THEN
              -- Everything taken at or before now goes, any debt and any block; the bookings ahead stay.
              k := 1;
              WHILE k <= n AND r.times[k] <= now_ LOOP k := k + 1; END LOOP;
              r.times := r.times[k:n];
              r.permits := r.permits[k:n];
              r.ids := r.ids[k:n];
              n := n - k + 1;
              IF p_burst IS NOT NULL THEN
                  ahead := coalesce((SELECT sum(p) FROM unnest(r.permits) AS u(p)), 0);
                  r.tokens := full_credit - ahead * p_window;
                  r.last := now_;
                  -- The latest booking, if it is still ahead, keeps its right to come back: its snapshot is the
                  -- reset bucket without it. Forgotten, it gives nothing back.
                  take := (SELECT sum(p) FROM unnest(r.permits, r.ids) AS u(p, b) WHERE b = r.before_id);
                  IF take IS NULL THEN
                      r.before_id := NULL;
                  ELSE
                      r.before_tokens := full_credit - (ahead - take) * p_window;
                      r.before_last := now_;
                  END IF;
              END IF;
              r.blocked_until := NULL;
              changed := true;
          ELSIF p_op IN (4, 5) AND p_amount > 0
              AND least(now_::numeric + p_amount, big) > coalesce(r.blocked_until, small)
              AND NOT (p_op = 5 AND coalesce(r.blocked_until, small) > now_) THEN
              r.blocked_until := least(now_::numeric + p_amount, big)::bigint;
              changed := true;
          END IF;
          IF changed THEN
              IF p_burst IS NULL THEN
                  -- Bookings refunded to nothing go; the running totals are made again.
                  SELECT coalesce(array_agg(t ORDER BY i), '{}'), coalesce(array_agg(p ORDER BY i), '{}'),
                      coalesce(array_agg(b ORDER BY i), '{}')
                      INTO r.times, r.permits, r.ids
                      FROM unnest(r.times, r.permits, r.ids) WITH ORDINALITY AS u(t, p, b, i) WHERE p > 0;
                  r.cum := ARRAY(SELECT sum(p) OVER (ORDER BY i)
                      FROM unnest(r.permits) WITH ORDINALITY AS u(p, i) ORDER BY i);
                  n := coalesce(array_length(r.times, 1), 0);
                  r.rest_at := CASE WHEN n > 0 THEN least(r.times[n]::numeric + p_window, big)::bigint ELSE small END;
              ELSE
                  n := coalesce(array_length(r.times, 1), 0);
                  r.rest_at := greatest(
                      CASE WHEN r.tokens IS NULL OR r.tokens >= full_credit THEN small
                          ELSE least(r.last + div(full_credit - r.tokens + p_limit - 1, p_limit), big)::bigint END,
                      CASE WHEN n > 0 THEN least(r.times[n]::numeric + 1, big)::bigint ELSE small END);
              END IF;
              r.latest := greatest(r.latest, now_);
              IF held THEN
                  UPDATE ratelimit_keys SET latest = r.latest, rest_at = r.rest_at, times = r.times,
                      permits = r.permits, ids = r.ids, cum = r.cum, tokens = r.tokens, last = r.last,
                      before_tokens = r.before_tokens, before_last = r.before_last, before_id = r.before_id,
                      blocked_until = r.blocked_until
                      WHERE name = p_name AND key = p_key;
              ELSE
                  INSERT INTO ratelimit_keys SELECT r.*;
              END IF;
          END IF;
          d := ratelimit_decide_v4(p_name, p_key, p_limit, p_window, p_burst, 1, now_, NULL, 2, 0, NULL, NULL);
          o_time := d.o_time;
          o_now := d.o_now;
          o_remaining := d.o_remaining;
          o_rest_at := d.o_rest_at;
          o_effective := ratelimit_effective_v1(p_name, p_key, p_limit, p_window, p_burst, d.o_now);
      END
      $f$;
      """

    /// A middleware's penalty in the decision's own round trip (SPEC 4.2, "penalty"): the request decided as
    /// `tryAcquire` (booking id `p_id`); refused by the rule, the key is blocked for `p_penalty` from that instant
    /// (`ratelimit_operate_v1` op 5, which keeps a block in force as it is: the refusal was the block's), and the
    /// refusal of `p_permits` is reported after it. Under the key's lock throughout.
    static let decidePenalisingFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide_penalising_v1(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_permits bigint,
          p_now bigint, p_lock_timeout text, p_id bigint, p_penalty bigint,
          OUT o_time bigint, OUT o_now bigint, OUT o_id bigint, OUT o_booked boolean, OUT o_remaining bigint,
          OUT o_rest_at bigint, OUT o_effective bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          d record;
      BEGIN
          IF p_lock_timeout IS NOT NULL THEN
              PERFORM set_config('lock_timeout', p_lock_timeout, true);
          END IF;
          PERFORM pg_advisory_xact_lock(ratelimit_lock_key(p_name, p_key));
          d := ratelimit_decide_v4(p_name, p_key, p_limit, p_window, p_burst, p_permits, p_now, 0, 0, 0, NULL, p_id);
          IF NOT d.o_booked THEN
              PERFORM ratelimit_operate_v1(p_name, p_key, p_limit, p_window, p_burst, 5, p_penalty, d.o_now, NULL);
              d := ratelimit_decide_v4(
                  p_name, p_key, p_limit, p_window, p_burst, p_permits, d.o_now, NULL, 2, 0, NULL, NULL);
          END IF;
          o_time := d.o_time;
          o_now := d.o_now;
          o_id := d.o_id;
          o_booked := d.o_booked;
          o_remaining := d.o_remaining;
          o_rest_at := d.o_rest_at;
          o_effective := ratelimit_effective_v1(p_name, p_key, p_limit, p_window, p_burst, d.o_now);
      END
      $f$;
      """

    /// A middleware's request whose policies count, shadow or penalise (SPEC 4.2), in one round trip: the parts
    /// decided as `ratelimit_decide_all_v6` decides them (every key's lock first, booking ids `p_ids`), but only
    /// an enforced part's refusal (`p_shadow[j]` false) refuses the request. A refused request keeps nothing; an
    /// enforced part with a penalty (`p_penalties[j]` > 0) that refused is then decided again by
    /// `ratelimit_decide_penalising_v1` at the same instant (it refuses again, and blocks the key if its rule
    /// refused), the others report their key as it is. A granted request keeps every grant, a shadow part's
    /// included; its refusal takes nothing.
    static let decideOperatedFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide_operated_v1(
          p_names bytea[], p_key bytea, p_limits bigint[], p_windows bigint[], p_bursts bigint[],
          p_permits bigint[], p_nows bigint[], p_clocks boolean[], p_lock_timeout text, p_ids bigint[],
          p_shadow boolean[], p_penalties bigint[])
      RETURNS TABLE (o_booked boolean, o_time bigint, o_now bigint, o_remaining bigint, o_rest_at bigint,
          o_effective bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          m integer := coalesce(array_length(p_names, 1), 0);
          effs bigint[] := '{}';
          d record;
          lock_key bigint;
          refused boolean := false;
          booked boolean[] := '{}';
          times bigint[] := '{}';
          nows bigint[] := '{}';
          remainings bigint[] := '{}';
          rests bigint[] := '{}';
          joint_now bigint;
          part_nows bigint[] := '{}';
      BEGIN
          IF p_lock_timeout IS NOT NULL THEN
              PERFORM set_config('lock_timeout', p_lock_timeout, true);
          END IF;
          FOR lock_key IN SELECT DISTINCT ratelimit_lock_key(nm, p_key) FROM unnest(p_names) AS nm ORDER BY 1 LOOP
              PERFORM pg_advisory_xact_lock(lock_key);
          END LOOP;
          IF false = ANY (p_clocks) THEN
              joint_now := ratelimit_clock();
          END IF;
          FOR j IN 1..m LOOP
              part_nows[j] := CASE WHEN p_clocks[j] THEN p_nows[j] ELSE joint_now END;
          END LOOP;
          BEGIN
              FOR j IN 1..m LOOP
                  d := ratelimit_decide_v4(p_names[j], p_key, p_limits[j], p_windows[j],
                      nullif(p_bursts[j], 0), p_permits[j], part_nows[j], 0, 0, 0, NULL, nullif(p_ids[j], 0));
                  booked[j] := d.o_booked;
                  times[j] := d.o_time;
                  nows[j] := d.o_now;
                  remainings[j] := d.o_remaining;
                  rests[j] := d.o_rest_at;
                  IF NOT d.o_booked AND NOT p_shadow[j] THEN refused := true; END IF;
              END LOOP;
              IF refused THEN
                  RAISE EXCEPTION 'refused' USING ERRCODE = 'RLREF';
              END IF;
              FOR j IN 1..m LOOP
                  effs[j] := ratelimit_effective_v1(p_names[j], p_key, p_limits[j], p_windows[j],
                      nullif(p_bursts[j], 0), nows[j]);
              END LOOP;
          EXCEPTION WHEN SQLSTATE 'RLREF' THEN
              FOR j IN 1..m LOOP
                  IF NOT booked[j] AND NOT p_shadow[j] AND p_penalties[j] > 0 THEN
                      d := ratelimit_decide_penalising_v1(p_names[j], p_key, p_limits[j], p_windows[j],
                          nullif(p_bursts[j], 0), p_permits[j], part_nows[j], NULL, nullif(p_ids[j], 0),
                          p_penalties[j]);
                      times[j] := d.o_time;
                      remainings[j] := d.o_remaining;
                      rests[j] := d.o_rest_at;
                      effs[j] := d.o_effective;
                  ELSE
                      d := ratelimit_decide_v4(p_names[j], p_key, p_limits[j], p_windows[j],
                          nullif(p_bursts[j], 0), p_permits[j], part_nows[j], NULL, 2, 0, NULL, NULL);
                      remainings[j] := d.o_remaining;
                      rests[j] := d.o_rest_at;
                      effs[j] := ratelimit_effective_v1(p_names[j], p_key, p_limits[j], p_windows[j],
                          nullif(p_bursts[j], 0), d.o_now);
                  END IF;
              END LOOP;
          END;
          FOR j IN 1..m LOOP
              o_booked := booked[j];
              o_time := times[j];
              o_now := nows[j];
              o_remaining := remainings[j];
              o_rest_at := rests[j];
              o_effective := effs[j];
              RETURN NEXT;
          END LOOP;
      END
      $f$;
      """
  }
#endif
