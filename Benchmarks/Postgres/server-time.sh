#!/usr/bin/env bash
# The server's share of a decision, measured with pgbench (a C client, one connection, unnamed statements as
# PostgresNIO sends them) on the server of RATELIMIT_POSTGRES_URL, after postgres-benchmark has prepared it:
#
#   bash scripts/with-postgres.sh bash -c \
#     'swift run -c release --package-path Benchmarks/Postgres postgres-benchmark && bash Benchmarks/Postgres/server-time.sh'
#
# Each line: latency average and transactions per second, 5 seconds each. A batch of 64 decisions is one
# transaction: its latency over 64 is the server's time per coalesced decision.
set -euo pipefail
: "${RATELIMIT_POSTGRES_URL:?run through scripts/with-postgres.sh}"
seconds=${SECONDS_EACH:-5}
scripts=$(mktemp -d)
trap 'rm -rf "$scripts"' EXIT
psql -q "$RATELIMIT_POSTGRES_URL" -c "CREATE UNLOGGED TABLE IF NOT EXISTS bench_counter (k integer PRIMARY KEY, n bigint);
  INSERT INTO bench_counter SELECT g, 0 FROM generate_series(1, 100000) g ON CONFLICT DO NOTHING;"
window="'\\x7067'::bytea"   # the name "pg"
minute=60000000000
echo 'SELECT 1;' > "$scripts/select1.sql"
printf '\\set k random(1, 100000)\nUPDATE bench_counter SET n = n + 1 WHERE k = :k RETURNING n;\n' > "$scripts/update.sql"
echo "SELECT * FROM ratelimit_decide_v4($window, '\\x686f74'::bytea, 100, $minute, NULL, 1, NULL, 0, 0, 0, '200ms', NULL);" \
  > "$scripts/hot.sql"
printf '\\set k random(1, 100000)\nSELECT * FROM ratelimit_decide_v4(%s, convert_to(%s, %s), 100, %s, NULL, 1, NULL, 0, 0, 0, %s, NULL);\n' \
  "$window" "'client-' || :k" "'UTF8'" "$minute" "'200ms'" > "$scripts/keys.sql"
printf 'SELECT count(*) FROM ratelimit_decide_many_v7(%s, ARRAY(SELECT convert_to(%s, %s) FROM generate_series(1, 64)), 100, %s, NULL, array_fill(1::bigint, ARRAY[64]), NULL, array_fill(0::bigint, ARRAY[64]), array_fill(0, ARRAY[64]), 0, %s, array_fill(0::bigint, ARRAY[64]));\n' \
  "$window" "'client-' || (random() * 100000)::int" "'UTF8'" "$minute" "'200ms'" > "$scripts/batch.sql"
echo "| statement (pgbench, 1 connection) | latency µs | per second |"
echo "|---|---:|---:|"
for case in "select1:SELECT 1" "update:a plain UPDATE … RETURNING (one row of 100,000)" \
  "hot:ratelimit_decide_v4, one hot key (refused)" "keys:ratelimit_decide_v4, 100,000 keys (granted)" \
  "batch:ratelimit_decide_many_v7, 64 of the 100,000 keys (one statement)"; do
  file=${case%%:*}
  label=${case#*:}
  out=$(pgbench -n -M extended -c 1 -T "$seconds" -f "$scripts/$file.sql" "$RATELIMIT_POSTGRES_URL" 2>&1)
  latency=$(sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p' <<<"$out")
  tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out")
  awk -v l="$label" -v ms="$latency" -v tps="$tps" 'BEGIN { printf "| %s | %.0f | %.0f |\n", l, ms * 1000, tps }'
done
