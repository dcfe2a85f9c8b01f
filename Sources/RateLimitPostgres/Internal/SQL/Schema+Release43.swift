#if Postgres
  /// What 4.2 and 4.3's processes call that this version no longer does, so that they keep deciding beside it
  /// during a rolling deploy (SPEC, "PostgreSQL, rolling deploys"): their statements read the key's effective
  /// window and the name's stored rule through two functions of their own, which `ratelimit_decide_v4` now
  /// answers itself. Each is a read, as before.
  extension Schema {
    static let release43Functions = """
      CREATE OR REPLACE FUNCTION ratelimit_effective_v1(
          p_name bytea, p_key bytea, p_limit bigint, p_window bigint, p_burst bigint, p_now bigint)
      RETURNS bigint
      LANGUAGE sql VOLATILE AS $f$
          SELECT o_effective FROM ratelimit_decide_v4(p_name, p_key, p_limit, p_window, p_burst, 1, p_now, NULL, 2,
              0, NULL, NULL)
      $f$;
      CREATE OR REPLACE FUNCTION ratelimit_rule_v1(
          p_name bytea, p_after bigint, OUT o_lim bigint, OUT o_win bigint, OUT o_burst bigint, OUT o_clock bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      BEGIN
          SELECT lim, win, burst INTO o_lim, o_win, o_burst FROM ratelimit_names WHERE name = p_name;
          o_clock := ratelimit_clock();
      END
      $f$;
      """
  }
#endif
