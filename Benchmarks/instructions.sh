#!/usr/bin/env bash
# Instructions per call() for the floor and every mode, counted by valgrind's callgrind: the same count whatever
# else the machine is doing. Each mode runs twice (N and 2N calls); the difference divided by N is one call. Debug
# info is stripped first: valgrind 3.19 cannot read Swift 6.3's.
#
#   bash Benchmarks/instructions.sh          every mode, 100,000 calls
#   bash Benchmarks/instructions.sh check    the modes with a budget (instruction-budgets), 50,000 calls; fails if
#                                            any mode costs more over the floor than its budget (CI runs this)
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product call-instructions >/dev/null
binary=$(mktemp -d)/call-instructions
cp "$(swift build -c release --show-bin-path)/call-instructions" "$binary"
strip --strip-debug "$binary"
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$@" 2>&1 | grep -o "Collected : [0-9]*" | grep -o "[0-9]*"; }
per_call() {
  local small large
  small=$(count "$1" "$2")
  large=$(count "$1" $(($2 * 2)))
  echo $(((large - small) / $2))
}

if [[ "${1:-}" != "check" ]]; then
  for mode in floor tl tt tf dl dt dm tr dr ta da dc; do echo "$mode $(per_call "$mode" 500000)"; done
  exit 0
fi

floor=$(per_call floor 50000)
echo "floor $floor"
status=0
while read -r mode budget _; do
  [[ -z "$mode" || "$mode" == \#* ]] && continue
  over=$(($(per_call "$mode" 50000) - floor))
  if ((over > budget)); then
    echo "$mode: floor + $over, over its budget of floor + $budget" >&2
    status=1
  else
    echo "$mode: floor + $over (budget $budget)"
  fi
done <instruction-budgets
exit $status
