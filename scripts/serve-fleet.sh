#!/usr/bin/env bash
# Two instances of `rate-limit-demo --serve <port> <postgres-url>` (traits Hummingbird and Postgres) on one
# database, behind one policy of 10 per minute per client address: 15 requests from one client, alternating
# between them, must get exactly 10 × 200 and 5 × 429. Usage (with a server from with-postgres.sh):
#   bash scripts/with-postgres.sh bash scripts/serve-fleet.sh <path to rate-limit-demo>
set -euo pipefail
demo=$1
command -v curl >/dev/null || { apt-get update -qq && apt-get install -y -qq curl; }
work=$(mktemp -d)
p1=$((20000 + RANDOM % 20000))
p2=$((p1 + 1))
"$demo" --serve "$p1" "$RATELIMIT_POSTGRES_URL" >"$work/s1.log" 2>&1 &
s1=$!
"$demo" --serve "$p2" "$RATELIMIT_POSTGRES_URL" >"$work/s2.log" 2>&1 &
s2=$!
trap 'kill $s1 $s2 2>/dev/null || true' EXIT
# Wait for the ports without a request (a request would take a permit).
for p in $p1 $p2; do
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && break; sleep 0.2; done
done
for i in $(seq 15); do
  if ((i % 2)); then p=$p1; else p=$p2; fi
  curl -s -o /dev/null -w '%{http_code}\n' --max-time 5 "http://127.0.0.1:$p/hello"
done >"$work/codes.txt"
sort "$work/codes.txt" | uniq -c
if [[ $(grep -c '^200$' "$work/codes.txt") -ne 10 || $(grep -c '^429$' "$work/codes.txt") -ne 5 ]]; then
  echo "expected exactly 10 granted and 5 refused across the two instances" >&2
  cat "$work/s1.log" "$work/s2.log" >&2
  exit 1
fi
