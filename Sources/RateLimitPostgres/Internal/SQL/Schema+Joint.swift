#if Postgres
  /// Several names' decisions for one key in one statement (RateLimitHTTP's policies on one client): all or
  /// nothing (`ratelimit_decide_all_v6`), with shadow and penalised parts (`ratelimit_decide_operated_v1`), and one
  /// penalised decision (`ratelimit_decide_penalising_v1`).
  extension Schema {
    /// A joint decision with a booking id for each part (`p_ids[j]`): a caller that gave up waiting
    /// revokes them (`ratelimit_revoke_v4`), and a statement that runs after that books nothing for any part (a
    /// revoked id refuses its part, so the whole request is refused and rolled back). 4.1's joint decision had
    /// no ids, so a statement that ran late booked for nobody. It is
    /// `ratelimit_decide_operated_v1` with every part enforced and none penalised (one copy of the decision).
    static let decideAllWithIdsFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide_all_v6(
          p_names bytea[], p_key bytea, p_limits bigint[], p_windows bigint[], p_bursts bigint[],
          p_permits bigint[], p_nows bigint[], p_clocks boolean[], p_lock_timeout text, p_ids bigint[])
      RETURNS TABLE (o_booked boolean, o_time bigint, o_now bigint, o_remaining bigint, o_rest_at bigint,
          o_effective bigint, o_lim bigint, o_win bigint, o_burst bigint, o_clock bigint)
      LANGUAGE sql VOLATILE AS $f$
          SELECT * FROM ratelimit_decide_operated_v1(p_names, p_key, p_limits, p_windows, p_bursts, p_permits,
              p_nows, p_clocks, p_lock_timeout, p_ids,
              array_fill(false, ARRAY[coalesce(array_length(p_names, 1), 0)]),
              array_fill(0::bigint, ARRAY[coalesce(array_length(p_names, 1), 0)]))
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
          o_effective bigint, o_lim bigint, o_win bigint, o_burst bigint, o_clock bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          m integer := coalesce(array_length(p_names, 1), 0);
          effs bigint[] := '{}';
          lims bigint[] := '{}';
          wins bigint[] := '{}';
          bursts bigint[] := '{}';
          d record;
          refused boolean := false;
          booked boolean[] := '{}';
          times bigint[] := '{}';
          nows bigint[] := '{}';
          remainings bigint[] := '{}';
          rests bigint[] := '{}';
          joint_now bigint;
          part_nows bigint[] := '{}';
      BEGIN
          PERFORM ratelimit_lock_v1(p_lock_timeout,
              ARRAY(SELECT ratelimit_lock_key(nm, p_key) FROM unnest(p_names) AS nm), true);
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
                  effs[j] := d.o_effective;
                  lims[j] := d.o_lim;
                  wins[j] := d.o_win;
                  bursts[j] := d.o_burst;
                  times[j] := d.o_time;
                  nows[j] := d.o_now;
                  remainings[j] := d.o_remaining;
                  rests[j] := d.o_rest_at;
                  IF NOT d.o_booked AND NOT p_shadow[j] THEN refused := true; END IF;
              END LOOP;
              IF refused THEN
                  RAISE EXCEPTION 'refused' USING ERRCODE = 'RLREF';
              END IF;
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
                      lims[j] := d.o_lim;
                      wins[j] := d.o_win;
                      bursts[j] := d.o_burst;
                  ELSE
                      d := ratelimit_decide_v4(p_names[j], p_key, p_limits[j], p_windows[j],
                          nullif(p_bursts[j], 0), p_permits[j], part_nows[j], NULL, 2, 0, NULL, NULL);
                      remainings[j] := d.o_remaining;
                      rests[j] := d.o_rest_at;
                      effs[j] := d.o_effective;
                      lims[j] := d.o_lim;
                      wins[j] := d.o_win;
                      bursts[j] := d.o_burst;
                  END IF;
              END LOOP;
          END;
          -- The rule each part was decided by (another process's `update`), and the database's clock after.
          o_clock := ratelimit_clock();
          FOR j IN 1..m LOOP
              o_lim := lims[j];
              o_win := wins[j];
              o_burst := bursts[j];
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

    /// A middleware's penalty in the decision's own round trip (SPEC 4.2, "penalty"): the request decided as
    /// `tryAcquire` (booking id `p_id`); refused by the rule, the key is blocked for `p_penalty` from that instant
    /// (`ratelimit_operate_v2` op 5, which keeps a block in force as it is: the refusal was the block's), and the
    /// refusal of `p_permits` is reported after it. Under the key's lock throughout.
    static let decidePenalisingFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide_penalising_v1(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_permits bigint,
          p_now bigint, p_lock_timeout text, p_id bigint, p_penalty bigint,
          OUT o_time bigint, OUT o_now bigint, OUT o_id bigint, OUT o_booked boolean, OUT o_remaining bigint,
          OUT o_rest_at bigint, OUT o_effective bigint, OUT o_lim bigint, OUT o_win bigint, OUT o_burst bigint, OUT o_clock bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          d record;
      BEGIN
          PERFORM ratelimit_lock_v1(p_lock_timeout, ARRAY[ratelimit_lock_key(p_name, p_key)], true);
          d := ratelimit_decide_v4(p_name, p_key, p_limit, p_window, p_burst, p_permits, p_now, 0, 0, 0, NULL, p_id);
          IF NOT d.o_booked THEN
              PERFORM ratelimit_operate_v2(p_name, p_key, p_limit, p_window, p_burst, 5, p_penalty, d.o_now, NULL, NULL);
              d := ratelimit_decide_v4(
                  p_name, p_key, p_limit, p_window, p_burst, p_permits, d.o_now, NULL, 2, 0, NULL, NULL);
          END IF;
          o_time := d.o_time;
          o_now := d.o_now;
          o_id := d.o_id;
          o_booked := d.o_booked;
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
  }
#endif
