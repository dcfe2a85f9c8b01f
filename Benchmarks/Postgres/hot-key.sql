-- A hot key's grant (Benchmarks/README.md, "A hot key in PostgreSQL"): release 14's ratelimit_decide_v4 (chunks)
-- beside the same function with the spill switched off (every booking in the row: release 13's cost), one server,
-- one run; a transaction per decision, as a limiter sends them. Run against a database a limiter has prepared:
--   psql "$RATELIMIT_POSTGRES_URL" -Atq -v ON_ERROR_STOP=1 -f Benchmarks/Postgres/hot-key.sql
SET synchronous_commit = off;
DROP ROUTINE IF EXISTS hot_bench(text, text, bigint, bigint, int, int[]);
DO $$ DECLARE def text; BEGIN
  def := pg_get_functiondef('ratelimit_decide_v4'::regproc);
  def := replace(def, 'ratelimit_decide_v4(', 'ratelimit_decide_rowonly(');
  IF position('>= 2 * 16' IN def) = 0 THEN RAISE EXCEPTION 'no spill threshold found'; END IF;
  def := replace(def, '>= 2 * 16', '>= 2000000000');
  EXECUTE def;
END $$;
CREATE OR REPLACE PROCEDURE hot_bench(p_fn text, p_label text, p_burst bigint, p_limit bigint, p_mode int,
    p_sizes int[]) LANGUAGE plpgsql AS $f$
DECLARE
  name_ bytea := convert_to('hotbench-' || p_fn || '-' || p_label, 'UTF8');
  held int := 0;
  t0 timestamptz;
  d record;
  target int;
BEGIN
  DELETE FROM ratelimit_keys WHERE name = name_;
  COMMIT;
  FOREACH target IN ARRAY p_sizes LOOP
    WHILE held < target - 50 LOOP
      EXECUTE format('SELECT * FROM %I($1, $2, $3, $4, $5, 1, NULL, NULL, $6, 0, NULL, NULL)', p_fn)
        INTO d USING name_, 'k'::bytea, p_limit, 3600000000000::bigint, p_burst, p_mode;
      IF NOT d.o_booked THEN RAISE EXCEPTION 'refused while filling'; END IF;
      held := held + 1;
      COMMIT;
    END LOOP;
    t0 := clock_timestamp();
    FOR i IN 1..100 LOOP
      EXECUTE format('SELECT * FROM %I($1, $2, $3, $4, $5, 1, NULL, NULL, $6, 0, NULL, NULL)', p_fn)
        INTO d USING name_, 'k'::bytea, p_limit, 3600000000000::bigint, p_burst, p_mode;
      IF NOT d.o_booked THEN RAISE EXCEPTION 'refused while timing'; END IF;
      COMMIT;
    END LOOP;
    held := held + 100;
    RAISE NOTICE '% % at %: % ms a grant', p_label, p_fn, target,
      round(extract(epoch FROM clock_timestamp() - t0) * 1000 / 100, 3);
  END LOOP;
  DELETE FROM ratelimit_keys WHERE name = name_;
  COMMIT;
END $f$;
CALL hot_bench('ratelimit_decide_rowonly', 'window', NULL, 100000, 0, ARRAY[30, 600, 3000, 10000]);
CALL hot_bench('ratelimit_decide_v4', 'window', NULL, 100000, 0, ARRAY[30, 600, 3000, 10000]);
CALL hot_bench('ratelimit_decide_rowonly', 'bucket', 1, 1000, 1, ARRAY[30, 1500]);
CALL hot_bench('ratelimit_decide_v4', 'bucket', 1, 1000, 1, ARRAY[30, 1500]);
DROP PROCEDURE hot_bench(text, text, bigint, bigint, int, int[]);
DROP FUNCTION ratelimit_decide_rowonly;
