#!/usr/bin/env bash
# Instructions per call() for the floor and every synchronous mode, counted by valgrind's callgrind: the same count
# whatever else the machine is doing. Each mode runs twice (100,000 and 200,000 calls); the difference divided by
# 100,000 is one call. Debug info is stripped first: valgrind 3.19 cannot read Swift 6.3's.
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product call-instructions >/dev/null
binary=$(mktemp -d)/call-instructions
cp "$(swift build -c release --show-bin-path)/call-instructions" "$binary"
strip --strip-debug "$binary"
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$@" 2>&1 | grep -o "Collected : [0-9]*" | grep -o "[0-9]*"; }
for mode in floor tl tt tf dl dt dm tr dr ta da dc; do
  small=$(count "$mode" 100000)
  large=$(count "$mode" 200000)
  echo "$mode $(( (large - small) / 100000 ))"
done
