#!/usr/bin/env bash
# Requests per second of a hello-world route without and with RateLimitMiddleware (over a KeyedRateLimiter, and
# over a PostgresRateLimiter when RATELIMIT_POSTGRES_URL is set), wrk on loopback, release build, one run; then
# the instructions the router spends on one request of each variant (callgrind, no sockets):
#
#   bash scripts/with-postgres.sh bash Benchmarks/Postgres/http.sh
#
# Each variant is a server process of its own serving `/hello`, so that the route is found at the same cost in
# each. The servers share one core and wrk has the other; the variants take turns, round after round, in an order
# that rotates, and each round's rates are compared with `plain`'s of the same round (this VM drifts by a third
# from one second to the next).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
swift build -c release --package-path "$here" --product http-benchmark >&2
binary="$here/.build/release/http-benchmark"
base=${PORT:-18_080}
base=${base//_/}
variants=(plain noop headers keyed select)
[[ -n ${RATELIMIT_POSTGRES_URL:-} ]] && variants+=(postgres)
server_cpu=() client_cpu=()
if command -v taskset >/dev/null && (($(nproc) >= 2)); then server_cpu=(taskset -c 1) client_cpu=(taskset -c 0); fi
logs=$(mktemp -d)
servers=()
trap 'kill "${servers[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$logs"' EXIT
for index in "${!variants[@]}"; do
  "${server_cpu[@]}" "$binary" $((base + index)) "${variants[$index]}" >"$logs/${variants[$index]}" 2>&1 &
  servers+=($!)
done
for index in "${!variants[@]}"; do
  for _ in $(seq 100); do
    grep -q ready "$logs/${variants[$index]}" && curl -fs "http://127.0.0.1:$((base + index))/hello" >/dev/null && break
    sleep 0.1
  done
done
seconds=${SECONDS_EACH:-1}
rounds=${ROUNDS:-30}
url() { echo "http://127.0.0.1:$((base + $1))/hello"; }
for index in "${!variants[@]}"; do "${client_cpu[@]}" wrk -t1 -c32 -d2s "$(url "$index")" >/dev/null; done  # warm-up
declare -A rates ratios
count=${#variants[@]}
for round in $(seq "$rounds"); do
  declare -A got=()
  for turn in $(seq 0 $((count - 1))); do
    index=$(((turn + round) % count))
    out=$("${client_cpu[@]}" wrk -t1 -c32 -d"${seconds}s" "$(url "$index")")
    non2xx=$(awk '/Non-2xx/ { print $5 }' <<<"$out")
    [[ -n $non2xx ]] && { echo "${variants[$index]} answered $non2xx requests with other than 2xx" >&2; exit 1; }
    got[${variants[$index]}]=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")
  done
  line="round $round:"
  for variant in "${variants[@]}"; do
    rates[$variant]+="${got[$variant]} "
    ratios[$variant]+="$(awk -v a="${got[$variant]}" -v b="${got[plain]}" 'BEGIN { printf "%f", a / b }') "
    line+=" $variant ${got[$variant]}/s"
  done
  echo "$line" >&2
done
# The median, and the middle half of the rounds (first and third quartiles).
stats() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)], a[int(NR / 4) + 1], a[int(3 * NR / 4)] }'; }
echo "| variant | requests/s (median of $rounds) | over \`plain\` (median of the rounds' ratios) | middle half of the ratios |"
echo "|---|---:|---:|---|"
for variant in "${variants[@]}"; do
  read -r median _ _ <<<"$(stats "${rates[$variant]}")"
  read -r ratio low high <<<"$(stats "${ratios[$variant]}")"
  awk -v v="$variant" -v m="$median" -v r="$ratio" -v l="$low" -v h="$high" \
    'BEGIN { printf "| `%s` | %.0f | %.3f× | %.3f–%.3f× |\n", v, m, r, l, h }'
done

# Instructions a request (callgrind counts the same whatever the VM does): the router's work alone, on one thread,
# N and 2N requests, the difference over N. Debug info is stripped first: valgrind 3.19 cannot read Swift 6.3's.
command -v valgrind >/dev/null || exit 0
stripped="$logs/http-benchmark"
strip --strip-debug -o "$stripped" "$binary"
instructions() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$stripped" --responder "$1" "$2" 2>&1 |
    grep -o "Collected : [0-9]*" | grep -o "[0-9]*"
}
echo
echo "| variant | instructions a request (the router alone) | over \`plain\` |"
echo "|---|---:|---:|"
for variant in plain noop headers keyed select; do
  small=$(instructions "$variant" 10000)
  large=$(instructions "$variant" 20000)
  each=$(((large - small) / 10000))
  [[ $variant == plain ]] && plain=$each
  echo "| \`$variant\` | $each | +$((each - plain)) |"
done
