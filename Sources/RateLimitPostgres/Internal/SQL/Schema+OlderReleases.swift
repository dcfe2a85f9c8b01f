#if Postgres
  /// The functions this release keeps only for processes of older releases, which keep calling them against this
  /// release's tables during a rolling deploy (`prepare()` returns at once when the database's release is newer than
  /// its own, so a newer release's bodies stand). Each is a call of this release's function, and says which releases
  /// call it: it may go once no process of those releases runs against the database.
  extension Schema {
    /// Several policies' decisions for one key (`p_bursts[j]` 0: a sliding window), all or nothing, in one
    /// statement: every key's lock first, in one order (two joint decisions never wait for each other in a
    /// cycle), then each decision in the policies' order inside a subtransaction that is rolled back if any
    /// refuses; the report is then each key as it is.
    ///
    /// Each part decides at its own limiter's "now" (release 8): `p_nows[j]` where `p_clocks[j]` (a limiter on
    /// `.clock(c)`, its reading as it would send it alone), else the database's clock, read once every key's
    /// lock is held (so the parts on it decide at one instant). Release 7's `ratelimit_decide_all_v4` sent one
    /// "now" for every part, so a part on another clock than the first part's was decided at the wrong time.
    /// Since release 9 it is kept for release-8 processes, as a call of `ratelimit_decide_all_v6` (booking ids).
    /// It may go once no process of release 8 runs against the database.
    static let decideAllFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide_all_v5(
          p_names bytea[], p_key bytea, p_limits bigint[], p_windows bigint[], p_bursts bigint[],
          p_permits bigint[], p_nows bigint[], p_clocks boolean[], p_lock_timeout text)
      RETURNS TABLE (o_booked boolean, o_time bigint, o_now bigint, o_remaining bigint, o_rest_at bigint)
      LANGUAGE sql VOLATILE AS $f$
          -- Release 9: a call of ratelimit_decide_all_v6 without booking ids (Schema+Joint.swift).
          SELECT o_booked, o_time, o_now, o_remaining, o_rest_at FROM ratelimit_decide_all_v6(p_names, p_key,
              p_limits, p_windows, p_bursts, p_permits, p_nows, p_clocks, p_lock_timeout,
              array_fill(0::bigint, ARRAY[cardinality(p_names)]))
      $f$;
      """

    /// Release 7's joint decision, kept for processes of release 7 during a rolling deploy: one "now" for every
    /// part (`p_now`, or the database's clock), as `ratelimit_decide_all_v5` with that "now" for each. It may go
    /// once no process of release 7 runs against the database.
    static let version7DecideAllFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide_all_v4(
          p_names bytea[], p_key bytea, p_limits bigint[], p_windows bigint[], p_bursts bigint[],
          p_permits bigint[], p_now bigint, p_lock_timeout text)
      RETURNS TABLE (o_booked boolean, o_time bigint, o_now bigint, o_remaining bigint, o_rest_at bigint)
      LANGUAGE sql VOLATILE AS $f$
          SELECT * FROM ratelimit_decide_all_v5(p_names, p_key, p_limits, p_windows, p_bursts, p_permits,
              array_fill(coalesce(p_now, 0), ARRAY[cardinality(p_names)]),
              array_fill(p_now IS NOT NULL, ARRAY[cardinality(p_names)]), p_lock_timeout)
      $f$;
      """

    /// Release 9 and 10's batch, kept for their processes during a rolling deploy: release 11's, which they
    /// never ask to give back (mode 3). It may go once no process of release 9 or 10 runs against the database.
    static let version10DecideManyFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide_many_v6(
          p_name bytea, p_keys bytea[], p_limit bigint, p_window bigint, p_burst bigint, p_permits bigint[],
          p_now bigint, p_max_delays bigint[], p_modes integer[], p_sweep integer, p_lock_timeout text,
          p_ids bigint[])
      RETURNS TABLE (o_time bigint, o_now bigint, o_id bigint, o_booked boolean, o_swept integer,
          o_remaining bigint, o_rest_at bigint, o_blocked boolean, o_effective bigint)
      LANGUAGE sql VOLATILE AS $f$
          SELECT * FROM ratelimit_decide_many_v7(p_name, p_keys, p_limit, p_window, p_burst, p_permits, p_now,
              p_max_delays, p_modes, p_sweep, p_lock_timeout, p_ids)
      $f$;
      """

    /// Release 5 to 8's batch, kept for their processes during a rolling deploy: release 9's without the
    /// effective windows. It may go once no process of releases 5 to 8 runs against the database.
    static let version8DecideManyFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide_many_v5(
          p_name bytea, p_keys bytea[], p_limit bigint, p_window bigint, p_burst bigint, p_permits bigint[],
          p_now bigint, p_max_delays bigint[], p_modes integer[], p_sweep integer, p_lock_timeout text,
          p_ids bigint[])
      RETURNS TABLE (o_time bigint, o_now bigint, o_id bigint, o_booked boolean, o_swept integer,
          o_remaining bigint, o_rest_at bigint, o_blocked boolean)
      LANGUAGE sql VOLATILE AS $f$
          SELECT o_time, o_now, o_id, o_booked, o_swept, o_remaining, o_rest_at, o_blocked
          FROM ratelimit_decide_many_v7(p_name, p_keys, p_limit, p_window, p_burst, p_permits, p_now,
              p_max_delays, p_modes, p_sweep, p_lock_timeout, p_ids)
      $f$;
      """
  }
#endif
