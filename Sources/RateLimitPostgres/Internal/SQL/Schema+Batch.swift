#if Postgres
  extension Schema {
    /// Several decisions of one name in one statement (coalescing): what `ratelimit_decide_v4` answers for each,
    /// made one by one in the arrays' order, in one transaction.
    ///
    /// Every key's lock is taken first, in one order (ascending lock key, as `ratelimit_decide_all_v6` does), so
    /// two batches — or a batch and a joint decision — never wait for each other in a cycle. A key whose lock
    /// cannot be had within `p_lock_timeout` (another session holds it) answers `o_blocked` and decides nothing;
    /// after the first such key, the rest are only tried, so a batch waits for one blocked key at most. Mode 2
    /// (`retryAfter`) reads only and takes no lock. `p_ids[j]` 0: no id of the caller's (mode 2).
    ///
    /// The sweep comes last, once every decision has written its row, and skips the batch's keys and every
    /// row another session holds: the batch never waits on a row lock while it holds advisory locks.
    ///
    /// The database's clock is read once for the batch (its
    /// decisions are made one by one at that instant), each decision is called as an expression rather than a
    /// query (no function scan), and no lock key is computed again unless a key was blocked. 64 decisions on
    /// 100,000 keys: 7.5 → 6.0 ms (`pgbench`, median of 6 alternating runs).
    ///
    /// It carries give-backs too (SPEC 4.2: "coalesced like decisions"): mode 3 takes booking `p_ids[j]` of
    /// `p_permits[j]` back exactly, as `ratelimit_undo_v5` does, and reports the key after it (`o_id` `NULL`,
    /// `o_booked` false).
    static let decideManyFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_decide_many_v7(
          p_name bytea, p_keys bytea[], p_limit bigint, p_window bigint, p_burst bigint, p_permits bigint[],
          p_now bigint, p_max_delays bigint[], p_modes integer[], p_sweep integer, p_lock_timeout text,
          p_ids bigint[])
      RETURNS TABLE (o_time bigint, o_now bigint, o_id bigint, o_booked boolean, o_swept integer,
          o_remaining bigint, o_rest_at bigint, o_blocked boolean, o_effective bigint, o_lim bigint, o_win bigint,
          o_burst bigint, o_clock bigint)
      LANGUAGE plpgsql VOLATILE AS $f$
      DECLARE
          effs bigint[] := '{}';
          m integer := coalesce(array_length(p_keys, 1), 0);
          blocked bigint[];
          d record;
          latest_now bigint;
          swept integer := 0;
          times bigint[] := '{}';
          nows bigint[] := '{}';
          ids bigint[] := '{}';
          booked boolean[] := '{}';
          remainings bigint[] := '{}';
          rests bigint[] := '{}';
          blocks boolean[] := '{}';
          batch_now bigint;
          lim bigint;
          win bigint;
          burst bigint;
      BEGIN
          blocked := ratelimit_lock_v1(p_lock_timeout, ARRAY(SELECT ratelimit_lock_key(p_name, x.key)
              FROM unnest(p_keys, p_modes) AS x(key, mode) WHERE x.mode <> 2), false);
          -- The database's clock, read once its keys' locks are held: never behind a key's latest
          -- "now", which a decision that held the lock before wrote, so an earlier reading is never taken for a
          -- step back of the clock.
          batch_now := coalesce(p_now, ratelimit_clock());
          FOR j IN 1..m LOOP
              IF cardinality(blocked) > 0 AND p_modes[j] <> 2
                      AND ratelimit_lock_key(p_name, p_keys[j]) = ANY (blocked) THEN
                  blocks[j] := true;
                  CONTINUE;
              END IF;
              IF p_modes[j] = 3 THEN
                  SELECT * INTO d FROM ratelimit_undo_v5(p_name, p_keys[j], p_limit, p_window, p_burst,
                      p_permits[j], p_ids[j], batch_now, p_lock_timeout);
                  times[j] := d.o_time;
                  nows[j] := d.o_now;
                  booked[j] := false;
                  remainings[j] := d.o_remaining;
                  rests[j] := d.o_rest_at;
                  effs[j] := d.o_effective;
              ELSE
                  d := ratelimit_decide_v4(p_name, p_keys[j], p_limit, p_window, p_burst, p_permits[j],
                      batch_now, p_max_delays[j], p_modes[j], 0, NULL, nullif(p_ids[j], 0));
                  times[j] := d.o_time;
                  nows[j] := d.o_now;
                  ids[j] := d.o_id;
                  booked[j] := d.o_booked;
                  remainings[j] := d.o_remaining;
                  rests[j] := d.o_rest_at;
                  effs[j] := d.o_effective;
                  lim := d.o_lim;
                  win := d.o_win;
                  burst := d.o_burst;
              END IF;
              blocks[j] := false;
              latest_now := greatest(latest_now, d.o_now);
          END LOOP;
          IF p_sweep > 0 AND latest_now IS NOT NULL THEN
              \(sweep(restBy: "latest_now", except: "key <> ALL (p_keys)", counting: "swept"))
          END IF;
          -- The name's rule, as its latest decision read it (another process's `update`); `NULL`s without one.
          o_lim := lim;
          o_win := win;
          o_burst := burst;
          o_clock := ratelimit_clock();
          FOR j IN 1..m LOOP
              o_time := times[j];
              o_now := nows[j];
              o_id := ids[j];
              o_booked := coalesce(booked[j], false);
              o_swept := swept;
              o_remaining := remainings[j];
              o_rest_at := rests[j];
              o_blocked := blocks[j];
              o_effective := effs[j];
              RETURN NEXT;
          END LOOP;
      END
      $f$;
      """
  }
#endif
