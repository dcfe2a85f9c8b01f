#if Postgres
  /// Release 11 (4.2): a served request's give-back in one round trip (SPEC 4.2, `counting`). One grant's
  /// give-back rides in the lane with decisions (`ratelimit_decide_many_v7`, mode 3, in `Schema+Batch.swift`);
  /// the grants of several policies that one joint decision made are given back by this function.
  extension Schema {
    /// Gives back booking `p_ids[j]` of `p_permits[j]` on name `p_names[j]` for `p_key`, for every part, exactly
    /// (`ratelimit_undo_v5` each, by the name's stored rule), in one transaction. Every part's key lock is
    /// taken first, in one order (ascending lock key, as `ratelimit_decide_all_v5` does), so that it never waits
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
          lock_key bigint;
      BEGIN
          PERFORM set_config('lock_timeout', p_lock_timeout, true);
          FOR lock_key IN SELECT DISTINCT ratelimit_lock_key(x.name, p_key) FROM unnest(p_names) AS x(name)
                  ORDER BY 1 LOOP
              PERFORM pg_advisory_xact_lock(lock_key);
          END LOOP;
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
