#if Postgres
  /// Release 11 (4.2): a served request's give-back in one round trip (SPEC 4.2, `counting`), and `update` in
  /// O(1) (SPEC 4.2: "keys settle when next used"). One grant's give-back rides in the lane with decisions
  /// (`ratelimit_decide_many_v7`, mode 3, in `Schema+Batch.swift`); the grants of several policies that one joint
  /// decision made are given back by `ratelimit_give_back_all_v1`.
  ///
  /// An update numbers the name's rule (`ratelimit_names.version`) and keeps the rules before and after it
  /// (`ratelimit_updates`); a key's row carries the number it was last brought under (`ratelimit_keys.version`:
  /// a new row's is the name's, set by the decision that writes it, or by trigger for an older release's). Every function that reads a row brings it under the updates made since
  /// (`ratelimit_settle_v1`), writing it back when it holds the key's lock; the sweep and `count()` judge a row
  /// by its state brought under them (a read). The conversion is the eager one of release 10, at the same
  /// instant (the update's, or the key's latest write if later), so every answer is the same.
  extension Schema {
    /// The columns, table and trigger release 11 adds, to tables of any earlier release.
    static let release11Objects = """
      ALTER TABLE ratelimit_names ADD COLUMN IF NOT EXISTS version integer NOT NULL DEFAULT 0;
      ALTER TABLE ratelimit_keys ADD COLUMN IF NOT EXISTS version integer NOT NULL DEFAULT 0;
      CREATE TABLE IF NOT EXISTS ratelimit_updates (
          name bytea NOT NULL,
          version integer NOT NULL,
          at bigint NOT NULL,
          old_lim bigint NOT NULL,
          old_win bigint NOT NULL,
          old_burst bigint,
          new_lim bigint NOT NULL,
          new_win bigint NOT NULL,
          new_burst bigint,
          PRIMARY KEY (name, version));
      CREATE OR REPLACE FUNCTION ratelimit_new_key_v1() RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN
          NEW.version := coalesce((SELECT version FROM ratelimit_names WHERE name = NEW.name), 0);
          RETURN NEW;
      END
      $f$;
      DROP TRIGGER IF EXISTS ratelimit_keys_version ON ratelimit_keys;
      CREATE TRIGGER ratelimit_keys_version BEFORE INSERT ON ratelimit_keys
          FOR EACH ROW WHEN (NEW.version IS NULL) EXECUTE FUNCTION ratelimit_new_key_v1();
      """

    /// `r` brought under the updates of its name numbered above `r.version` up to `p_upto`, in order, exactly as
    /// release 10's eager update converted every key: a sliding window made longer keeps its row longer; a token
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
                  IF u.new_win > u.old_win THEN
                      r.rest_at := CASE WHEN n > 0 THEN least(r.times[n]::numeric + u.new_win, big)::bigint
                          ELSE small END;
                  END IF;
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
    /// when next read (`ratelimit_settle_v1`); release 10 converted every key of the name here, under each key's
    /// lock.
    static let updateFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_update_v1(
          p_name bytea, p_limit bigint, p_window bigint, p_burst bigint, p_now bigint, p_lock_timeout text)
          RETURNS void
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          small CONSTANT bigint := -9223372036854775808;
          stored ratelimit_names%ROWTYPE;
          now_ bigint;
      BEGIN
          IF p_lock_timeout IS NOT NULL THEN
              PERFORM set_config('lock_timeout', p_lock_timeout, true);
          END IF;
          SELECT * INTO stored FROM ratelimit_names WHERE name = p_name FOR UPDATE;
          IF NOT FOUND THEN
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
      END
      $f$;
      """

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
