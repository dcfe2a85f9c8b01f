#if Postgres
  /// A booking given back: cancelled (`Reservation.cancel()`), revoked (a caller that gave up waiting), taken back
  /// exactly (a refused request's grant, a served request's give-back), or several names' grants of one request given
  /// back together.
  extension Schema {
    /// Whether a booking id was revoked by a caller that gave up waiting (`NULL`: never).
    static let revokedFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_revoked_v4(p_id bigint) RETURNS boolean
      LANGUAGE sql STABLE AS
      $f$ SELECT p_id IS NOT NULL AND EXISTS (SELECT 1 FROM ratelimit_revoked WHERE id = p_id) $f$;
      """

    /// A caller gave up on a decision (its timeout passed): the booking `p_id` is revoked, under the key's lock.
    /// If the decision ran, its booking is taken back (as `ratelimit_cancel_v4` with force); if it has not run
    /// yet (a frozen server, a statement queued), it will book nothing. Revocations older than an hour are
    /// deleted by the sweep.
    static let revokeFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_revoke_v4(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_id bigint,
          p_lock_timeout text)
          RETURNS void
      LANGUAGE plpgsql VOLATILE AS $f$
      BEGIN
          PERFORM ratelimit_lock_v1(p_lock_timeout, ARRAY[ratelimit_lock_key(p_name, p_key)], true);
          INSERT INTO ratelimit_revoked (id) VALUES (p_id) ON CONFLICT DO NOTHING;
          PERFORM ratelimit_cancel_v4(p_name, p_key, p_limit, p_window, p_burst, p_id, NULL, true);
          -- A late booking taken back may end other processes' refusals of the key (SPEC 4.3.1).
          PERFORM pg_notify('ratelimit_v1', encode(p_name, 'hex') || ':' || encode(p_key, 'hex'));
      END
      $f$;
      """

    /// Gives a booking back. `p_force` false (`cancel()`): at or before its instant only. `p_force` true (a
    /// booking revoked by a caller that gave up, `ratelimit_revoke_v4`): whenever.
    /// Window: the booking leaves the log. Bucket: the credit comes back if it is the key's latest booking (the
    /// bucket is then as if it had never been made); otherwise only the booking leaves the list ahead, and the
    /// latest booking keeps its right to come back. Ids never repeat, so a stale id touches nothing.
    static let cancelFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_cancel_v4(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_id bigint, p_now bigint,
          p_force boolean)
          RETURNS void
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          big CONSTANT bigint := 9223372036854775807;
          small CONSTANT bigint := -9223372036854775808;
          r record;  -- not %ROWTYPE: that locks the table as the function compiles, before lock_timeout
          now_ bigint;
          at integer;
          n integer;
          full_credit numeric;
          pre record;
          old_last bigint;
      BEGIN
          PERFORM ratelimit_lock_v1(NULL, ARRAY[ratelimit_lock_key(p_name, p_key)], true);
          -- A booking in a chunk is cancelled with every booking back in the row.
          PERFORM ratelimit_unchunk_for_v1(p_name, p_key, p_id);
          -- The key under the name's stored rule first (every update since it was written).
          pre := ratelimit_key_v1(p_name, p_key, p_limit, p_window, p_burst, true);
          IF NOT pre.o_held THEN RETURN; END IF;
          p_limit := pre.o_limit;
          p_window := pre.o_window;
          p_burst := pre.o_burst;
          r := pre.o_row;
          now_ := greatest(coalesce(p_now, ratelimit_clock()), r.latest);
          old_last := r.last;
          at := array_position(r.ids, p_id);
          -- A bucket's grant for now (mode 0) is not in the list; a revocation still finds it by
          -- the snapshot of its latest booking.
          IF at IS NULL AND NOT (p_force AND p_burst IS NOT NULL AND r.before_id IS NOT DISTINCT FROM p_id) THEN
              RETURN;
          END IF;
          IF at IS NOT NULL AND NOT p_force AND r.times[at] < now_ THEN RETURN; END IF;
          n := coalesce(array_length(r.ids, 1), 0);
          IF p_burst IS NOT NULL AND r.before_id IS NOT DISTINCT FROM p_id THEN
              r.tokens := r.before_tokens;
              r.last := r.before_last;
              r.before_id := NULL;
              -- During a block, a bucket that a booking made during it brought up to the block's end stays there
              -- (as `TokenBucket.cancel` in the core): the credit as if the booking had never been made, at that
              -- instant, so that a charge or refund before the block ends is taken there, as without the cancel.
              IF coalesce(r.blocked_until, small) > now_ AND least(old_last, r.blocked_until) > now_ THEN
                  full_credit := p_burst::numeric * p_window;
                  IF r.tokens IS NOT NULL AND r.tokens < full_credit THEN
                      r.tokens := least(r.tokens + (least(old_last, r.blocked_until)::numeric
                          - least(r.last, least(old_last, r.blocked_until))) * p_limit, full_credit);
                      IF r.tokens >= full_credit THEN r.tokens := NULL; END IF;
                  END IF;
                  r.last := least(old_last, r.blocked_until);
              END IF;
          END IF;
          IF at IS NOT NULL THEN
              IF p_burst IS NULL THEN
                  FOR j IN at + 1..n LOOP r.cum[j] := r.cum[j] - r.permits[at]; END LOOP;
                  r.cum := r.cum[1:at - 1] || r.cum[at + 1:n];
              END IF;
              r.times := r.times[1:at - 1] || r.times[at + 1:n];
              r.permits := r.permits[1:at - 1] || r.permits[at + 1:n];
              r.ids := r.ids[1:at - 1] || r.ids[at + 1:n];
              n := n - 1;
          END IF;
          IF p_burst IS NULL THEN
              -- A booking an update forgot (at or before the name's floor) keeps no key from rest.
              r.rest_at := CASE WHEN n = 0 OR r.times[n] <= pre.o_floor THEN small
                  ELSE least(r.times[n]::numeric + p_window, big)::bigint END;
          ELSE
              full_credit := p_burst::numeric * p_window;
              r.rest_at := greatest(
                  CASE WHEN r.tokens IS NULL OR r.tokens >= full_credit THEN small
                      ELSE least(r.last + div(full_credit - r.tokens + p_limit - 1, p_limit), big)::bigint END,
                  CASE WHEN n = 0 THEN small ELSE least(r.times[n]::numeric + 1, big)::bigint END);
          END IF;
          -- A revocation (p_force) keeps the key's "now": it reads the database's clock, which a limiter on a
          -- clock of its own (`.clock(c)`) does not use.
          UPDATE ratelimit_keys SET latest = CASE WHEN p_force THEN r.latest ELSE now_ END, rest_at = r.rest_at,
              times = r.times, permits = r.permits, ids = r.ids, cum = r.cum, tokens = r.tokens, last = r.last,
              before_id = r.before_id
              WHERE name = p_name AND key = p_key;
      END
      $f$;
      """

    /// Takes a grant back exactly, whatever other grants of the key came between it and now, and reports the key
    /// after it (as a read, mode 2, would for `p_permits`): a sliding window's booking leaves the log; a token
    /// bucket gets exactly the booking's permits back (never above full), where `ratelimit_cancel_v4`, Go's
    /// cancel, gives back only what later bookings did not count on. The id is revoked first, under the key's
    /// lock: a second undo of the same id, or a decision with that id that has not run yet, takes nothing.
    /// `p_now`: the limiter's "now" with `.clock(c)`, `NULL` for the database's clock. The name's stored
    /// rule decides, as every decision's does: a process that has not yet seen another's `update` gives back at the
    /// new parameters' scale.
    static let undoFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_undo_v5(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_permits bigint,
          p_id bigint, p_now bigint, p_lock_timeout text)
      RETURNS TABLE (o_time bigint, o_now bigint, o_remaining bigint, o_rest_at bigint, o_effective bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          big CONSTANT bigint := 9223372036854775807;
          small CONSTANT bigint := -9223372036854775808;
          r record;  -- not %ROWTYPE: that locks the table as the function compiles, before lock_timeout
          revoked_now integer;
          now_ bigint;
          at integer;
          n integer;
          full_credit numeric;
          credit numeric;
          d record;
          pre record;
      BEGIN
          PERFORM ratelimit_lock_v1(p_lock_timeout, ARRAY[ratelimit_lock_key(p_name, p_key)], true);
          pre := ratelimit_key_v1(p_name, p_key, p_limit, p_window, p_burst, NULL);
          p_limit := pre.o_limit;
          p_window := pre.o_window;
          p_burst := pre.o_burst;
          r := pre.o_row;
          INSERT INTO ratelimit_revoked (id) VALUES (p_id) ON CONFLICT DO NOTHING;
          GET DIAGNOSTICS revoked_now = ROW_COUNT;
          IF revoked_now > 0 AND p_burst IS NOT NULL THEN
              -- A booking in a chunk is given back with every booking back in the row.
              IF ratelimit_unchunk_for_v1(p_name, p_key, p_id) THEN
                  SELECT * INTO r FROM ratelimit_keys WHERE name = p_name AND key = p_key;
              END IF;
          END IF;
          IF pre.o_held AND revoked_now > 0 THEN
              IF r.version < pre.o_version THEN r := ratelimit_settle_v1(r, pre.o_version, true); END IF;
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
          o_effective := d.o_effective;
          IF revoked_now > 0 AND d.o_remaining <= p_permits THEN
              -- The key had no permit left before this give-back: other processes may refuse it locally (SPEC
              -- 4.3.1).
              PERFORM pg_notify('ratelimit_v1', encode(p_name, 'hex') || ':' || encode(p_key, 'hex'));
          END IF;
          RETURN NEXT;
      END
      $f$;
      """

    /// Gives back booking `p_ids[j]` of `p_permits[j]` on name `p_names[j]` for `p_key`, for every part, exactly
    /// (`ratelimit_undo_v5` each, by the name's stored rule), in one transaction. Every part's key lock is
    /// taken first, in one order (ascending lock key, `ratelimit_lock_v1`), so that it never waits
    /// in a cycle with a joint decision or a batch. `p_bursts[j]` 0: a sliding window; `p_clocks[j]`: the part's
    /// "now" is `p_nows[j]` (`.clock(c)`), else the database's clock: the arguments of a joint decision
    /// (`ratelimit_decide_all_v6`), the parts' booking ids last. Returns how many parts it was given.
    static let giveBackAllFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_give_back_all_v1(
          p_names bytea[], p_key bytea, p_limits bigint[], p_windows bigint[], p_bursts bigint[],
          p_permits bigint[], p_nows bigint[], p_clocks boolean[], p_lock_timeout text, p_ids bigint[])
      RETURNS integer
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          m integer := coalesce(array_length(p_names, 1), 0);
      BEGIN
          PERFORM ratelimit_lock_v1(p_lock_timeout,
              ARRAY(SELECT ratelimit_lock_key(x.name, p_key) FROM unnest(p_names) AS x(name)), true);
          FOR j IN 1..m LOOP
              PERFORM ratelimit_undo_v5(p_names[j], p_key, p_limits[j], p_windows[j], nullif(p_bursts[j], 0),
                  p_permits[j], p_ids[j], CASE WHEN p_clocks[j] THEN p_nows[j] END, p_lock_timeout);
          END LOOP;
          RETURN m;
      END
      $f$;
      """
  }
#endif
