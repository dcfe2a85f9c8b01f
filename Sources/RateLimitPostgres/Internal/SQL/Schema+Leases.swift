#if Postgres
  /// 4.4: the leases of `PostgresConcurrencyLimiter`, beside the rate limits' objects and apart from
  /// them (a concurrency limit's name is its own: `ratelimit_lease_names`, not `ratelimit_names`).
  ///
  /// One row per lease and per waiter (`ratelimit_leases`), in arrival order (`id`, from a sequence): a waiter is a
  /// row not `held` yet. Every row expires on the database's clock, `ttl` nanoseconds after it was granted or last
  /// renewed (`expires`); an expired row counts for nothing and is deleted by the next statement on its key, or by
  /// the sweep that follows a limiter's decisions (`LeaseSweep.swift`, without the key's lock). Every change of a
  /// key's rows takes the key's transaction-scoped advisory lock first (its own seed: a rate limit and a
  /// concurrency limit of one name never share a lock), then serves the waiters that fit
  /// (`ratelimit_lease_serve_v2`), in order, and notifies channel `ratelimit_v1` with the payload
  /// `lease:<name-hex>:<key-hex>` (or `lease:<name-hex>` after an update) when anyone was served, so that every
  /// process's waiters of the key check again at once. Older processes ignore such payloads (not hex).
  ///
  /// Five functions: `ratelimit_lease_acquire_v2` (a decision, a waiter's check, releases carried before it),
  /// `ratelimit_lease_keep_v1` (releases and renewals of one name), `ratelimit_lease_revoke_v1` (what callers that
  /// gave up on a statement would hold if it ran late: a new row carries its caller's `token`),
  /// `ratelimit_lease_update_v1`, and the helper `ratelimit_lease_serve_v2`.
  extension Schema {
    static let leaseObjects = """
      CREATE TABLE IF NOT EXISTS ratelimit_lease_names (name bytea PRIMARY KEY, lim bigint NOT NULL);
      CREATE SEQUENCE IF NOT EXISTS ratelimit_lease_ids;
      CREATE UNLOGGED TABLE IF NOT EXISTS ratelimit_leases (
          id bigint PRIMARY KEY DEFAULT nextval('ratelimit_lease_ids'),
          name bytea NOT NULL, key bytea NOT NULL, permits bigint NOT NULL, held boolean NOT NULL,
          ttl bigint NOT NULL, expires bigint NOT NULL);
      CREATE INDEX IF NOT EXISTS ratelimit_leases_by_key ON ratelimit_leases (name, key, id);
      ALTER TABLE ratelimit_leases ADD COLUMN IF NOT EXISTS token bigint;
      CREATE UNIQUE INDEX IF NOT EXISTS ratelimit_leases_by_token ON ratelimit_leases (token);
      \(leaseServeFunction)
      \(leaseKeepFunction)
      \(leaseAcquireFunction)
      \(leaseRevokeFunction)
      \(leaseUpdateFunction)
      """

    /// The key's lock (the caller holds it): reads the key's rows once (the permits held, whether anyone waits,
    /// whether any expired); deletes the expired ones, if any; then, if anyone waits, serves the waiters in arrival
    /// order while the head's permits fit beside the leases held; a waiter for more than the limit can never be
    /// served and is deleted (its process reads its place gone and the limit: `exceedsCapacity`). Notifies when it
    /// served or deleted a waiter. Returns the permits held after it, and whether anyone still waits. A key
    /// without waiters or expired rows (the usual case) costs one index scan.
    static let leaseServeFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_lease_serve_v2(
          p_name bytea, p_key bytea, p_lim bigint, p_now bigint, OUT o_held bigint, OUT o_waiting boolean)
      LANGUAGE plpgsql AS $f$
      DECLARE
        v_expired boolean;
        v_row record;
        v_moved boolean := false;
      BEGIN
        SELECT coalesce(sum(permits) FILTER (WHERE held AND expires > p_now), 0),
            coalesce(bool_or(NOT held AND expires > p_now), false), coalesce(bool_or(expires <= p_now), false)
          INTO o_held, o_waiting, v_expired FROM ratelimit_leases WHERE name = p_name AND key = p_key;
        IF v_expired THEN
          DELETE FROM ratelimit_leases WHERE name = p_name AND key = p_key AND expires <= p_now;
        END IF;
        IF NOT o_waiting THEN RETURN; END IF;
        o_waiting := false;
        FOR v_row IN SELECT id, permits, ttl FROM ratelimit_leases
            WHERE name = p_name AND key = p_key AND NOT held ORDER BY id LOOP
          IF v_row.permits > p_lim THEN
            DELETE FROM ratelimit_leases WHERE id = v_row.id;
            v_moved := true;
            CONTINUE;
          END IF;
          IF o_held + v_row.permits > p_lim THEN
            o_waiting := true;
            EXIT;
          END IF;
          UPDATE ratelimit_leases SET held = true, expires = p_now + v_row.ttl WHERE id = v_row.id;
          o_held := o_held + v_row.permits;
          v_moved := true;
        END LOOP;
        IF v_moved THEN
          PERFORM pg_notify('ratelimit_v1', 'lease:' || encode(p_name, 'hex') || ':' || encode(p_key, 'hex'));
        END IF;
      END
      $f$;
      """

    /// Releases (`p_release`: leases and waiters' places, deleted under their keys' locks, in key order, then
    /// their keys' waiters served) and renewals (`p_renew`: held leases not expired, `p_ttl` from now). Returns the
    /// ids of `p_renew` it could not renew: expired (or released already).
    static let leaseKeepFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_lease_keep_v1(
          p_name bytea, p_renew bigint[], p_release bigint[], p_ttl bigint)
      RETURNS TABLE (o_lost bigint) LANGUAGE plpgsql AS $f$
      DECLARE
        v_now bigint;
        v_key bytea;
        v_lim bigint;
      BEGIN
        IF cardinality(p_release) > 0 THEN
          v_lim := (SELECT lim FROM ratelimit_lease_names WHERE name = p_name);
          FOR v_key IN SELECT DISTINCT key FROM ratelimit_leases WHERE name = p_name AND id = ANY (p_release)
              ORDER BY key LOOP
            PERFORM pg_advisory_xact_lock(hashtextextended(p_name::text || '/' || v_key::text, 4404));
            DELETE FROM ratelimit_leases WHERE name = p_name AND key = v_key AND id = ANY (p_release);
            IF v_lim IS NOT NULL THEN
              PERFORM ratelimit_lease_serve_v2(p_name, v_key, v_lim, ratelimit_clock());
            END IF;
          END LOOP;
        END IF;
        IF cardinality(p_renew) = 0 THEN RETURN; END IF;
        v_now := ratelimit_clock();
        RETURN QUERY
          WITH renewed AS (
            UPDATE ratelimit_leases l SET expires = v_now + p_ttl
            WHERE l.name = p_name AND l.id = ANY (p_renew) AND l.held AND l.expires > v_now RETURNING l.id)
          SELECT r FROM unnest(p_renew) AS r WHERE r NOT IN (SELECT id FROM renewed);
      END
      $f$;
      """

    /// Leases and places of callers that gave up on their statement (its `timeout` passed; it may run later), by
    /// the token the statement carried (`p_ids`, chosen by the caller): each deleted under its key's lock if it is
    /// there (its key's waiters served), else its token taken by a zero-permit row until `p_ttl` from now, so that
    /// the statement, if it runs later, takes nothing.
    static let leaseRevokeFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_lease_revoke_v1(
          p_name bytea, p_keys bytea[], p_ids bigint[], p_ttl bigint, p_lock_timeout text)
      RETURNS bigint LANGUAGE plpgsql AS $f$
      DECLARE
        v_lim bigint;
        v_now bigint;
        v_item record;
      BEGIN
        PERFORM ratelimit_lock_v1(p_lock_timeout, '{}', true);
        v_lim := (SELECT lim FROM ratelimit_lease_names WHERE name = p_name);
        FOR v_item IN SELECT k, i FROM unnest(p_keys, p_ids) AS t(k, i) ORDER BY k LOOP
          PERFORM pg_advisory_xact_lock(hashtextextended(p_name::text || '/' || v_item.k::text, 4404));
          v_now := ratelimit_clock();
          DELETE FROM ratelimit_leases WHERE token = v_item.i AND permits > 0;
          IF FOUND THEN
            IF v_lim IS NOT NULL THEN
              PERFORM ratelimit_lease_serve_v2(p_name, v_item.k, v_lim, v_now);
            END IF;
          ELSE
            INSERT INTO ratelimit_leases (token, name, key, permits, held, ttl, expires)
              VALUES (v_item.i, p_name, v_item.k, 0, true, p_ttl, v_now + p_ttl) ON CONFLICT (token) DO NOTHING;
          END IF;
        END LOOP;
        RETURN cardinality(p_ids);
      END
      $f$;
      """

    /// One decision on a key, after the releases it carries (`p_release`, this limiter's released leases not sent
    /// yet: so a release never reaches the database after a later decision of its limiter). Stores the name's
    /// limit (`p_lim`) unless one is stored; decides by the stored one. `p_waiter` 0: a new request (granted,
    /// refused, or with `p_wait` a place at the end of the line); else a waiter's check of its place (granted once
    /// served, else its place renewed; gone if it expired). `o_state`: 0 refused, 1 granted, 2 waiting, 3 more
    /// than the limit, 4 the waiter's place is gone.
    static let leaseAcquireFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_lease_acquire_v2(
          p_name bytea, p_key bytea, p_permits bigint, p_lim bigint, p_ttl bigint, p_wait boolean,
          p_waiter bigint, p_release bigint[], p_lock_timeout text, p_id bigint)
      RETURNS TABLE (o_state integer, o_id bigint, o_lim bigint, o_held bigint, o_waiting boolean)
      LANGUAGE plpgsql AS $f$
      DECLARE
        v_now bigint;
        v_lim bigint;
        v_held bigint;
        v_waiting boolean;
        v_row record;
        v_state integer := 0;
        v_id bigint;
        v_lock bytea;
      BEGIN
        PERFORM ratelimit_lock_v1(p_lock_timeout, '{}', true);
        IF cardinality(p_release) > 0 THEN
          -- Every key's lock in key order, this one's included, as every statement on several keys takes them
          -- (taken out of order, two decisions carrying each other's key's releases deadlocked: 1 s each).
          FOR v_lock IN SELECT k FROM (SELECT key AS k FROM ratelimit_leases WHERE name = p_name
              AND id = ANY (p_release) UNION SELECT p_key) AS keys ORDER BY k LOOP
            PERFORM pg_advisory_xact_lock(hashtextextended(p_name::text || '/' || v_lock::text, 4404));
          END LOOP;
          PERFORM ratelimit_lease_keep_v1(p_name, '{}', p_release, 0);
        END IF;
        PERFORM pg_advisory_xact_lock(hashtextextended(p_name::text || '/' || p_key::text, 4404));
        v_lim := (SELECT lim FROM ratelimit_lease_names WHERE name = p_name);
        IF v_lim IS NULL THEN
          INSERT INTO ratelimit_lease_names (name, lim) VALUES (p_name, p_lim) ON CONFLICT (name) DO NOTHING;
          v_lim := (SELECT lim FROM ratelimit_lease_names WHERE name = p_name);
        END IF;
        v_now := ratelimit_clock();
        SELECT * INTO v_held, v_waiting FROM ratelimit_lease_serve_v2(p_name, p_key, v_lim, v_now);
        IF p_waiter <> 0 THEN
          SELECT held INTO v_row FROM ratelimit_leases WHERE id = p_waiter AND name = p_name AND key = p_key;
          IF NOT FOUND THEN
            v_state := CASE WHEN p_permits > v_lim THEN 3 ELSE 4 END;
          ELSIF v_row.held THEN
            v_state := 1;
            v_id := p_waiter;
          ELSE
            UPDATE ratelimit_leases SET expires = v_now + p_ttl WHERE id = p_waiter;
            v_state := 2;
            v_id := p_waiter;
          END IF;
        ELSIF p_permits > v_lim THEN
          v_state := 3;
        ELSIF NOT v_waiting AND v_held + p_permits <= v_lim THEN
          -- The caller's token taken already (revoked: the caller gave up on this statement), nothing is granted.
          INSERT INTO ratelimit_leases (token, name, key, permits, held, ttl, expires)
            VALUES (p_id, p_name, p_key, p_permits, true, p_ttl, v_now + p_ttl)
            ON CONFLICT (token) DO NOTHING RETURNING id INTO v_id;
          IF v_id IS NOT NULL THEN
            v_held := v_held + p_permits;
            v_state := 1;
          END IF;
        ELSIF p_wait THEN
          INSERT INTO ratelimit_leases (token, name, key, permits, held, ttl, expires)
            VALUES (p_id, p_name, p_key, p_permits, false, p_ttl, v_now + p_ttl)
            ON CONFLICT (token) DO NOTHING RETURNING id INTO v_id;
          v_state := CASE WHEN v_id IS NULL THEN 0 ELSE 2 END;
          v_waiting := v_waiting OR v_id IS NOT NULL;
        END IF;
        RETURN QUERY SELECT v_state, v_id, v_lim, v_held, v_waiting;
      END
      $f$;
      """

    /// A name's new limit for every process: stored, every key with waiters served by it (under its lock, in key
    /// order), and every process told (`lease:<name-hex>`).
    static let leaseUpdateFunction = """
      CREATE OR REPLACE FUNCTION ratelimit_lease_update_v1(p_name bytea, p_lim bigint)
      RETURNS bigint LANGUAGE plpgsql AS $f$
      DECLARE
        v_key bytea;
      BEGIN
        INSERT INTO ratelimit_lease_names (name, lim) VALUES (p_name, p_lim)
          ON CONFLICT (name) DO UPDATE SET lim = excluded.lim;
        FOR v_key IN SELECT DISTINCT key FROM ratelimit_leases WHERE name = p_name AND NOT held ORDER BY key LOOP
          PERFORM pg_advisory_xact_lock(hashtextextended(p_name::text || '/' || v_key::text, 4404));
          PERFORM ratelimit_lease_serve_v2(p_name, v_key, p_lim, ratelimit_clock());
        END LOOP;
        PERFORM pg_notify('ratelimit_v1', 'lease:' || encode(p_name, 'hex'));
        RETURN p_lim;
      END
      $f$;
      """
  }
#endif
