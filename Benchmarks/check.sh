#!/usr/bin/env bash
# Runs RateLimit's benchmarks against the committed thresholds (Benchmarks/Thresholds) and prints what moved.
# Exit status: 0 within the thresholds, 4 only improvements, anything else a regression (package-benchmark's codes).
#
#   bash Benchmarks/check.sh            check
#   bash Benchmarks/check.sh update     re-record the thresholds on this machine (then commit them)
#
# Checked: the cost of one call in every RateLimit mode (wall clock within 60% at p90, see Setup.swift; zero
# allocations) and the timers armed in a burst (exact). Timings are only comparable on the machine that recorded
# them: after moving to another machine, run `update` there first.
set -euo pipefail
cd "$(dirname "$0")"

filter='(Call|Timers)\.RateLimit\..*'
if [[ "${1:-}" == "update" ]]; then
  swift package --allow-writing-to-package-directory benchmark thresholds update --filter "$filter"
  exit 0
fi

status=0
swift package benchmark thresholds check --filter "$filter" || status=$?
case $status in
  0) echo "thresholds check: every RateLimit benchmark within its thresholds" ;;
  4) echo "thresholds check: only improvements; consider 'bash Benchmarks/check.sh update'" ;;
  *) echo "thresholds check: REGRESSION (exit $status); see the table above for what moved" >&2 ;;
esac
exit $status
