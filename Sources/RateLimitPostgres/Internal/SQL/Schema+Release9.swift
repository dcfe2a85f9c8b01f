#if Postgres
  /// Release 9 (4.1.1, "exact again"): what RateLimitHTTP's all-or-nothing needs of the database. Both are new
  /// functions beside release 8's, which a process of release 8 keeps calling during a rolling deploy.
  extension Schema {
    /// Takes a grant back exactly, whatever other grants of the key came between it and now, and reports the key
    /// after it (as a read, mode 2, would for `p_permits`): a sliding window's booking leaves the log; a token
    /// bucket gets exactly the booking's permits back (never above full), where `ratelimit_cancel_v4`, Go's
    /// cancel, gives back only what later bookings did not count on. The id is revoked first, under the key's
    /// lock: a second undo of the same id, or a decision with that id that has not run yet, takes nothing.
    /// `p_now`: the limiter's "now" with `.clock(c)`, `NULL` for the database's clock. Release 11 reads the
    /// name's stored rule first, as every decision does: a process that has not yet seen another's `update` gave
    /// back at the old parameters' scale (a bucket made 10 per 20 s from 10 per 10 s got nothing back of 5).
    static let undoFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_undo_v5(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_permits bigint,
          p_id bigint, p_now bigint, p_lock_timeout text)
      RETURNS TABLE (o_time bigint, o_now bigint, o_remaining bigint, o_rest_at bigint, o_effective bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          big CONSTANT bigint := 9223372036854775807;
          small CONSTANT bigint := -9223372036854775808;
          r ratelimit_keys%ROWTYPE;
          revoked_now integer;
          now_ bigint;
          at integer;
          n integer;
          full_credit numeric;
          credit numeric;
          d record;
          stored record;
      BEGIN
          PERFORM set_config('lock_timeout', p_lock_timeout, true);
          PERFORM pg_advisory_xact_lock(ratelimit_lock_key(p_name, p_key));
          SELECT lim, win, burst, version INTO stored FROM ratelimit_names WHERE name = p_name;
          IF FOUND AND stored.win > 0 THEN
              p_limit := stored.lim;
              p_window := stored.win;
              p_burst := stored.burst;
          END IF;
          INSERT INTO ratelimit_revoked (id) VALUES (p_id) ON CONFLICT DO NOTHING;
          GET DIAGNOSTICS revoked_now = ROW_COUNT;
          SELECT * INTO r FROM ratelimit_keys WHERE name = p_name AND key = p_key;
          IF FOUND AND revoked_now > 0 THEN
              IF r.version < coalesce(stored.version, 0) THEN r := ratelimit_settle_v1(r, stored.version, true); END IF;
              IF p_burst IS NULL THEN
                  PERFORM ratelimit_cancel_v4(p_name, p_key, p_limit, p_window, NULL, p_id, NULL, true);
              ELSE
                  now_ := coalesce(p_now, greatest(ratelimit_clock(), r.latest));
                  full_credit := p_burst::numeric * p_window;
                  credit := CASE WHEN r.tokens IS NULL OR r.tokens >= full_credit THEN full_credit
                      ELSE least(r.tokens + (now_::numeric - least(r.last, now_)) * p_limit, full_credit) END;
                  r.tokens := least(credit + p_permits::numeric * p_window, full_credit);
                  r.last := now_;
                  IF r.before_id IS NOT DISTINCT FROM p_id THEN r.before_id := NULL; END IF;
                  at := array_position(r.ids, p_id);
                  n := coalesce(array_length(r.ids, 1), 0);
                  IF at IS NOT NULL THEN
                      r.times := r.times[1:at - 1] || r.times[at + 1:n];
                      r.permits := r.permits[1:at - 1] || r.permits[at + 1:n];
                      r.ids := r.ids[1:at - 1] || r.ids[at + 1:n];
                      n := n - 1;
                  END IF;
                  r.rest_at := greatest(
                      CASE WHEN r.tokens >= full_credit THEN small
                          ELSE least(r.last + div(full_credit - r.tokens + p_limit - 1, p_limit), big)::bigint END,
                      CASE WHEN n = 0 THEN small ELSE least(r.times[n]::numeric + 1, big)::bigint END);
                  UPDATE ratelimit_keys SET rest_at = r.rest_at, times = r.times, permits = r.permits, ids = r.ids,
                      tokens = r.tokens, last = r.last, before_id = r.before_id
                      WHERE name = p_name AND key = p_key;
              END IF;
          END IF;
          d := ratelimit_decide_v4(p_name, p_key, p_limit, p_window, p_burst, p_permits, p_now, NULL, 2, 0, NULL,
              NULL);
          o_time := d.o_time;
          o_now := d.o_now;
          o_remaining := d.o_remaining;
          o_rest_at := d.o_rest_at;
          o_effective := ratelimit_effective_v1(p_name, p_key, p_limit, p_window, p_burst, d.o_now);
          RETURN NEXT;
      END
      $f$;
      """

    /// A key's effective window at `p_now` (SPEC 4.2's correction of `t`, `RateLimitDecision.effectiveWindow`),
    /// read after a decision in the same statement: once the key's remaining permits are taken now, nanoseconds
    /// until one more comes; with none remaining (a booking ahead, debt), the wait for one permit. The twin of
    /// `effectiveWindow(at:in:)` of `SlidingWindow` and `TokenBucket` in the core.
    static let effectiveFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_effective_v1(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_now bigint)
      RETURNS bigint
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          big CONSTANT bigint := 9223372036854775807;
          small CONSTANT bigint := -9223372036854775808;
          r ratelimit_keys%ROWTYPE;
          n integer;
          lo integer;
          hi integer;
          mid integer;
          bound bigint;
          in_window numeric;
          full_credit numeric;
          credit numeric;
          whole numeric;
          d record;
          stored record;
          floor_ bigint := small;
      BEGIN
          -- Release 10: the name's stored rule (`update`), and a block leaves nothing to take now.
          SELECT lim, win, burst, floor_at, version INTO stored FROM ratelimit_names WHERE name = p_name;
          IF FOUND AND stored.win > 0 THEN
              p_limit := stored.lim;
              p_window := stored.win;
              p_burst := stored.burst;
              floor_ := coalesce(stored.floor_at, small);
          END IF;
          SELECT * INTO r FROM ratelimit_keys WHERE name = p_name AND key = p_key;
          IF NOT FOUND THEN
              r := ROW(p_name, p_key, small, small, '{}', '{}', '{}', '{}', 0, NULL, small, NULL, NULL, NULL, NULL);
          ELSIF r.version < coalesce(stored.version, 0) THEN
              r := ratelimit_settle_v1(r, stored.version, false);
          END IF;
          n := coalesce(array_length(r.times, 1), 0);
          IF NOT (n > 0 AND r.times[n] > p_now) AND coalesce(r.blocked_until, small) <= p_now THEN
              IF p_burst IS NULL THEN
                  bound := greatest(p_now::numeric - p_window, floor_)::bigint;
                  lo := 1; hi := n + 1;
                  WHILE lo < hi LOOP
                      mid := (lo + hi) / 2;
                      IF r.times[mid] <= bound THEN lo := mid + 1; ELSE hi := mid; END IF;
                  END LOOP;
                  in_window := CASE WHEN lo <= n THEN r.cum[n] - r.cum[lo] + r.permits[lo] ELSE 0 END;
                  IF p_limit - in_window > 0 THEN
                      RETURN CASE WHEN lo <= n
                          THEN least(r.times[lo]::numeric + p_window, big) - p_now
                          ELSE p_window END;
                  END IF;
              ELSE
                  full_credit := p_burst::numeric * p_window;
                  credit := CASE WHEN r.tokens IS NULL OR r.tokens >= full_credit THEN full_credit
                      ELSE least(r.tokens + (p_now::numeric - least(r.last, p_now)) * p_limit, full_credit) END;
                  whole := least(greatest(floor(credit / p_window), 0), p_burst);
                  IF credit >= 0 AND whole > 0 THEN
                      RETURN div(p_window - (credit - whole * p_window) + p_limit - 1, p_limit);
                  END IF;
              END IF;
          END IF;
          -- None remaining: the wait for one permit, as `retryAfter(1)` reads it.
          d := ratelimit_decide_v4(p_name, p_key, p_limit, p_window, p_burst, 1, p_now, NULL, 2, 0, NULL, NULL);
          RETURN greatest(d.o_time - d.o_now, 0);
      END
      $f$;
      """

    /// `ratelimit_decide_all_v5` with a booking id for each part (`p_ids[j]`): a caller that gave up waiting
    /// revokes them (`ratelimit_revoke_v4`), and a statement that runs after that books nothing for any part (a
    /// revoked id refuses its part, so the whole request is refused and rolled back). 4.1's joint decision had
    /// no ids, so a statement that ran late booked for nobody. Since release 10 it is
    /// `ratelimit_decide_operated_v1` with every part enforced and none penalised (one copy of the decision).
    static let decideAllWithIdsFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide_all_v6(
          p_names bytea[], p_key bytea, p_limits bigint[], p_windows bigint[], p_bursts bigint[],
          p_permits bigint[], p_nows bigint[], p_clocks boolean[], p_lock_timeout text, p_ids bigint[])
      RETURNS TABLE (o_booked boolean, o_time bigint, o_now bigint, o_remaining bigint, o_rest_at bigint,
          o_effective bigint)
      LANGUAGE sql VOLATILE AS $f$
          SELECT * FROM ratelimit_decide_operated_v1(p_names, p_key, p_limits, p_windows, p_bursts, p_permits,
              p_nows, p_clocks, p_lock_timeout, p_ids,
              array_fill(false, ARRAY[coalesce(array_length(p_names, 1), 0)]),
              array_fill(0::bigint, ARRAY[coalesce(array_length(p_names, 1), 0)]))
      $f$;
      """
  }
#endif
