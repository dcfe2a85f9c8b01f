#if Postgres
  /// Operating a key and a name's rule (4.2). Each key may be blocked until an instant
  /// (`ratelimit_keys.blocked_until`, `NULL`: none), and each name keeps the rule every process decides by
  /// (`ratelimit_names`, which `update` changes; `floor_at`: a sliding window forgets the bookings at or before it,
  /// those that had left the window when an update made it longer). `ratelimit_decide_v4` reads
  /// both, so every function that calls it (joint
  /// decisions, batches) follows them too; an older process's own rows stay readable (the new columns are
  /// nullable). The rules are the core's (`PermitBook+Operations.swift`, `SlidingWindow+Operations.swift`,
  /// `TokenBucket+Operations.swift`, the `+Update.swift` files), in whole nanoseconds.
  ///
  /// An update numbers the name's rule (`ratelimit_names.version`) and keeps the rules before and
  /// after it (`ratelimit_updates`); a key's row carries the number it was last brought under
  /// (`ratelimit_keys.version`: a new row's is the name's, set by the decision that writes it, or by trigger for an
  /// older release's). Every function that reads a row brings it under the updates made since (`ratelimit_settle_v1`),
  /// writing it back when it holds the key's lock; the sweep and `count()` judge a row by its state brought under them
  /// (a read). The conversion is the one an eager update would make, at the same instant (the update's, or the key's latest
  /// write if later), so every answer is the same.
  extension Schema {
    /// `peek`: exactly what a decision would answer now (`ratelimit_decide_v4`, mode 0, and the key's effective
    /// window after it), made in a subtransaction that is then rolled back: no row is left written, no key
    /// swept, nothing taken. One round trip.
    static let peekFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_peek_v1(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_permits bigint,
          p_now bigint, p_lock_timeout text,
          OUT o_booked boolean, OUT o_time bigint, OUT o_now bigint, OUT o_remaining bigint,
          OUT o_rest_at bigint, OUT o_effective bigint, OUT o_lim bigint, OUT o_win bigint, OUT o_burst bigint, OUT o_clock bigint)
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
              o_effective := d.o_effective;
              o_lim := d.o_lim;
              o_win := d.o_win;
              o_burst := d.o_burst;
              o_clock := d.o_clock;
              RAISE EXCEPTION USING ERRCODE = 'RLPK1';
          EXCEPTION WHEN SQLSTATE 'RLPK1' THEN
              NULL;  -- the decision is rolled back; the answers stay
          END;
      END
      $f$;
      """

    /// An operation sent with `p_until` (the database's clock, nanoseconds) that runs later than that raises
    /// `RLLT1` and changes nothing: its caller has been told it failed, and an operation that threw never takes
    /// effect later (SPEC 4.3.1: a `charge` sent to a frozen server applied once it resumed). `NULL`: no bound.
    static let inTimeFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_in_time_v1(p_until bigint) RETURNS void
      LANGUAGE plpgsql VOLATILE AS $f$
      BEGIN
          IF p_until IS NOT NULL AND ratelimit_clock() > p_until THEN
              RAISE EXCEPTION 'rate limit: an operation that ran after its caller gave up on it'
                  USING ERRCODE = 'RLLT1';
          END IF;
      END
      $f$;
      """

    /// Operates a key under its advisory lock (`p_op`): 1 charge `p_amount` permits, 2 refund up to `p_amount`, 3
    /// reset, 4 block for `p_amount` nanoseconds, 5 block for `p_amount` nanoseconds unless a block is in force (a
    /// middleware's penalty: the refusals of a block never extend it). Reports the key after as `ratelimit_undo_v5`
    /// does (the wait for one permit, "now", what is left, when it is at rest, its effective window). A refund or reset
    /// of a key without a row does nothing; a charge or block makes one.
    static let operateFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_operate_v2(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_op integer,
          p_amount bigint, p_now bigint, p_lock_timeout text, p_until bigint,
          OUT o_time bigint, OUT o_now bigint, OUT o_remaining bigint, OUT o_rest_at bigint,
          OUT o_effective bigint, OUT o_lim bigint, OUT o_win bigint, OUT o_burst bigint, OUT o_clock bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          big CONSTANT bigint := 9223372036854775807;
          small CONSTANT bigint := -9223372036854775808;
          r record;  -- not %ROWTYPE: that locks the table as the function compiles, before lock_timeout
          floor_ bigint;
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
          pre record;
      BEGIN
          PERFORM ratelimit_lock_v1(p_lock_timeout, ARRAY[ratelimit_lock_key(p_name, p_key)], true);
          PERFORM ratelimit_in_time_v1(p_until);
          IF p_op IN (1, 2, 3) THEN
              -- A charge, refund or reset works on every booking, back in the row.
              PERFORM ratelimit_unchunk_v1(p_name, p_key);
          END IF;
          pre := ratelimit_key_v1(p_name, p_key, p_limit, p_window, p_burst, true);
          p_limit := pre.o_limit;
          p_window := pre.o_window;
          p_burst := pre.o_burst;
          floor_ := pre.o_floor;
          held := pre.o_held;
          r := pre.o_row;
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
              -- A block (4, 5) changes no booking: a hot window's running totals, which go on in its chunks, stay
              -- as they are (4.3.1: made again over the row alone, they forgot the chunks' permits).
              IF p_burst IS NULL AND p_op IN (1, 2, 3) THEN
                  -- Bookings refunded to nothing go; the running totals are made again.
                  SELECT coalesce(array_agg(t ORDER BY i), '{}'), coalesce(array_agg(p ORDER BY i), '{}'),
                      coalesce(array_agg(b ORDER BY i), '{}')
                      INTO r.times, r.permits, r.ids
                      FROM unnest(r.times, r.permits, r.ids) WITH ORDINALITY AS u(t, p, b, i) WHERE p > 0;
                  r.cum := ARRAY(SELECT sum(p) OVER (ORDER BY i)
                      FROM unnest(r.permits) WITH ORDINALITY AS u(p, i) ORDER BY i);
                  n := coalesce(array_length(r.times, 1), 0);
                  -- A booking an update forgot (at or before the floor) keeps no key from rest.
                  r.rest_at := CASE WHEN n > 0 AND r.times[n] > floor_
                      THEN least(r.times[n]::numeric + p_window, big)::bigint ELSE small END;
              ELSIF p_burst IS NOT NULL THEN
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
          -- Checked again last: a change that took past the deadline (a hot key brought back from its chunks) is
          -- rolled back too.
          PERFORM ratelimit_in_time_v1(p_until);
          IF changed AND p_op IN (2, 3) THEN
              -- A refund or reset ends every process's local refusal of the key once this commits (SPEC 4.3.1).
              PERFORM pg_notify('ratelimit_v1', encode(p_name, 'hex') || ':' || encode(p_key, 'hex'));
          END IF;
          d := ratelimit_decide_v4(p_name, p_key, p_limit, p_window, p_burst, 1, now_, NULL, 2, 0, NULL, NULL);
          o_time := d.o_time;
          o_now := d.o_now;
          o_remaining := d.o_remaining;
          o_rest_at := d.o_rest_at;
          o_effective := d.o_effective;
          o_lim := d.o_lim;
          o_win := d.o_win;
          o_burst := d.o_burst;
          o_clock := d.o_clock;
      END
      $f$;
      """

    /// 4.2's `ratelimit_operate_v1` and `ratelimit_update_v1`, which 4.2 processes call during a rolling deploy:
    /// `ratelimit_operate_v2` and `ratelimit_update_v2` without a deadline.
    static let operationsOf42Functions = """
      CREATE OR REPLACE FUNCTION ratelimit_operate_v1(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_op integer,
          p_amount bigint, p_now bigint, p_lock_timeout text,
          OUT o_time bigint, OUT o_now bigint, OUT o_remaining bigint, OUT o_rest_at bigint,
          OUT o_effective bigint)
      LANGUAGE sql VOLATILE AS $f$
          SELECT o_time, o_now, o_remaining, o_rest_at, o_effective FROM ratelimit_operate_v2(p_name, p_key,
              p_limit, p_window, p_burst, p_op, p_amount, p_now, p_lock_timeout, NULL)
      $f$;
      CREATE OR REPLACE FUNCTION ratelimit_update_v1(
          p_name bytea, p_limit bigint, p_window bigint, p_burst bigint, p_now bigint, p_lock_timeout text)
          RETURNS void
      LANGUAGE sql VOLATILE AS $f$
          SELECT ratelimit_update_v2(p_name, p_limit, p_window, p_burst, p_now, p_lock_timeout, NULL)
      $f$;
      """

    /// `r` brought under the updates of its name numbered above `r.version` up to `p_upto`, in order, exactly as
    /// an eager update would convert every key: a sliding window's key not at rest at the update is at rest
    /// once its latest booking leaves the new window; a token
    /// bucket's credit accrues at the old rate up to the update (or the key's latest write, if later), a full
    /// bucket stays full, any other credit is converted to the new window exactly, rounded against the key, and
    /// capped by the new burst (the latest booking's snapshot the same way). With `p_write`, under the key's
    /// lock, the row is written back.
    static let settleFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_settle_v1(r ratelimit_keys, p_upto integer, p_write boolean)
      RETURNS ratelimit_keys
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          big CONSTANT bigint := 9223372036854775807;
          small CONSTANT bigint := -9223372036854775808;
          u ratelimit_updates%ROWTYPE;
          instant bigint;
          old_full numeric;
          new_full numeric;
          credit numeric;
          n integer;
      BEGIN
          FOR u IN SELECT * FROM ratelimit_updates
                  WHERE name = r.name AND version > r.version AND version <= p_upto ORDER BY version LOOP
              n := coalesce(array_length(r.times, 1), 0);
              IF u.old_burst IS NULL THEN
                  -- At rest at the update: at rest after it (its bookings had left the old window and stay
                  -- forgotten). Otherwise at rest once its latest booking leaves the new window, longer or shorter.
                  r.rest_at := CASE WHEN r.rest_at <= u.at OR n = 0 THEN small
                      ELSE least(r.times[n]::numeric + u.new_win, big)::bigint END;
              ELSE
                  old_full := u.old_burst::numeric * u.old_win;
                  new_full := u.new_burst::numeric * u.new_win;
                  instant := greatest(u.at, r.last);
                  credit := CASE WHEN r.tokens IS NULL OR r.tokens >= old_full THEN NULL
                      ELSE least(r.tokens + (instant::numeric - least(r.last, instant)) * u.old_lim, old_full) END;
                  IF credit IS NOT NULL AND credit >= old_full THEN credit := NULL; END IF;
                  IF credit IS NOT NULL THEN
                      IF u.new_win <> u.old_win THEN
                          credit := CASE WHEN credit >= 0 THEN div(credit * u.new_win, u.old_win)
                              ELSE -div(-credit * u.new_win + u.old_win - 1, u.old_win) END;
                      END IF;
                      credit := least(credit, new_full);
                  END IF;
                  -- The latest booking's snapshot is brought under the new rule the same way, so that the
                  -- booking, cancelled, still gives back as if it had never been made.
                  IF r.before_id IS NOT NULL THEN
                      r.before_tokens := CASE WHEN r.before_tokens IS NULL OR r.before_tokens >= old_full THEN NULL
                          ELSE least(r.before_tokens + (instant::numeric - least(r.before_last, instant)) * u.old_lim,
                              old_full) END;
                      IF r.before_tokens >= old_full THEN r.before_tokens := NULL; END IF;
                      IF r.before_tokens IS NOT NULL THEN
                          IF u.new_win <> u.old_win THEN
                              r.before_tokens := CASE WHEN r.before_tokens >= 0
                                  THEN div(r.before_tokens * u.new_win, u.old_win)
                                  ELSE -div(-r.before_tokens * u.new_win + u.old_win - 1, u.old_win) END;
                          END IF;
                          r.before_tokens := least(r.before_tokens, new_full);
                      END IF;
                      r.before_last := instant;
                  END IF;
                  r.tokens := credit;
                  r.last := instant;
                  r.rest_at := greatest(
                      CASE WHEN credit IS NULL OR credit >= new_full THEN small
                          ELSE least(instant + div(new_full - credit + u.new_lim - 1, u.new_lim), big)::bigint END,
                      CASE WHEN n > 0 THEN least(r.times[n]::numeric + 1, big)::bigint ELSE small END);
              END IF;
              r.version := u.version;
          END LOOP;
          IF p_write THEN
              UPDATE ratelimit_keys SET rest_at = r.rest_at, tokens = r.tokens, last = r.last,
                  before_tokens = r.before_tokens, before_last = r.before_last, version = r.version
                  WHERE name = r.name AND key = r.key;
          END IF;
          RETURN r;
      END
      $f$;
      """

    /// `update`: the name's rule gets new parameters for every process at once, every key keeping its state,
    /// as `RateLimiter.update` keeps it. A sliding window's bookings that had left the old window stay forgotten
    /// (`floor_at`). O(1): the update is numbered and kept (`ratelimit_updates`), and each key is brought under it
    /// when next read (`ratelimit_settle_v1`), never here under each key's lock.
    static let updateFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_update_v2(
          p_name bytea, p_limit bigint, p_window bigint, p_burst bigint, p_now bigint, p_lock_timeout text,
          p_until bigint)
          RETURNS void
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          small CONSTANT bigint := -9223372036854775808;
          stored record;  -- not %ROWTYPE: that locks the table as the function compiles, before lock_timeout
          now_ bigint;
          is_stored boolean;
      BEGIN
          PERFORM ratelimit_lock_v1(p_lock_timeout, '{}', true);
          SELECT * INTO stored FROM ratelimit_names WHERE name = p_name FOR UPDATE;
          -- Read before the next PERFORM, which sets FOUND: a name with no rule stored gets this one.
          is_stored := FOUND;
          PERFORM ratelimit_in_time_v1(p_until);
          IF NOT is_stored THEN
              INSERT INTO ratelimit_names (name, rule, lim, win, burst)
                  VALUES (p_name, CASE WHEN p_burst IS NULL THEN 'window' ELSE 'bucket' END, p_limit, p_window,
                      p_burst);
              RETURN;
          END IF;
          now_ := coalesce(p_now, ratelimit_clock());
          INSERT INTO ratelimit_updates (name, version, at, old_lim, old_win, old_burst, new_lim, new_win, new_burst)
              VALUES (p_name, stored.version + 1, now_, stored.lim, stored.win, stored.burst, p_limit, p_window,
                  p_burst);
          UPDATE ratelimit_names SET lim = p_limit, win = p_window, burst = p_burst, version = stored.version + 1,
              floor_at = CASE WHEN stored.burst IS NULL THEN greatest(coalesce(stored.floor_at, small),
                  greatest(now_::numeric - stored.win, small)::bigint) ELSE stored.floor_at END
              WHERE name = p_name;
          PERFORM ratelimit_in_time_v1(p_until);
          -- Every process ends its local refusals of the name once this commits (SPEC 4.3.1).
          PERFORM pg_notify('ratelimit_v1', encode(p_name, 'hex'));
      END
      $f$;
      """
  }
#endif
