#!/usr/bin/env bash
# Requests per second of a hello-world route without and with RateLimitMiddleware (over a KeyedRateLimiter, and
# over a PostgresRateLimiter when RATELIMIT_POSTGRES_URL is set), wrk on loopback, release build, one run:
#
#   bash scripts/with-postgres.sh bash Benchmarks/Postgres/http.sh
#
# The server and wrk share this machine's cores: compare the routes within one run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
swift build -c release --package-path "$here" --product http-benchmark >&2
port=${PORT:-18_080}
port=${port//_/}
# The server on one core, wrk on the other: they no longer take each other's turns (less spread between rounds).
server_cpu=() client_cpu=()
if command -v taskset >/dev/null && (($(nproc) >= 2)); then server_cpu=(taskset -c 1) client_cpu=(taskset -c 0); fi
"${server_cpu[@]}" "$here/.build/release/http-benchmark" "$port" > /tmp/http-benchmark.$$.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -f /tmp/http-benchmark.$$.log' EXIT
for _ in $(seq 100); do
  grep -q ready /tmp/http-benchmark.$$.log 2>/dev/null && curl -fs "http://127.0.0.1:$port/plain" >/dev/null && break
  sleep 0.1
done
routes="plain noop headers keyed"  # noop: a middleware that does nothing; headers: one that adds the two fields
[[ -n ${RATELIMIT_POSTGRES_URL:-} ]] && routes="$routes postgres"
seconds=${SECONDS_EACH:-5}
rounds=${ROUNDS:-5}
# This VM drifts by a third from one run to the next: the routes take turns, round after round, and each reports
# its median.
for route in $routes; do "${client_cpu[@]}" wrk -t1 -c32 -d2s "http://127.0.0.1:$port/$route" >/dev/null; done  # warm-up
declare -A results
for round in $(seq "$rounds"); do
  for route in $routes; do
    out=$("${client_cpu[@]}" wrk -t1 -c32 -d"${seconds}s" --latency "http://127.0.0.1:$port/$route")
    non2xx=$(awk '/Non-2xx/ { print $5 }' <<<"$out")
    [[ -n $non2xx ]] && { echo "route $route answered $non2xx requests with other than 2xx" >&2; exit 1; }
    results[$route]+="$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out") "
    echo "round $round, /$route: $(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")/s" >&2
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# Each route over `plain` within each round, then the median of those ratios: drift between rounds cancels out.
ratios() { paste -d' ' <(tr ' ' '\n' <<<"$1" | grep .) <(tr ' ' '\n' <<<"$2" | grep .) | awk '{ printf "%f ", $1 / $2 }'; }
echo "| route | requests/s (median of $rounds) | each round | over \`plain\` (median of the rounds' ratios) |"
echo "|---|---:|---|---:|"
for route in $routes; do
  m=$(median "${results[$route]}")
  r=$(median "$(ratios "${results[$route]}" "${results[plain]}")")
  awk -v r="$route" -v m="$m" -v all="${results[$route]}" -v ratio="$r" \
    'BEGIN { printf "| `/%s` | %.0f | %s | %.3f× |\n", r, m, all, ratio }'
done
