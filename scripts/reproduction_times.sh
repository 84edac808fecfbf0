#!/usr/bin/env bash
# Wall time of each full paper reproduction (default seeds) and of all of them together,
# one after another on this machine. Speed is measured here, never in a unit test.
#   scripts/reproduction_times.sh [extra options for every reproduction, e.g. --seeds 1]
# Needs `headway` on PATH (or HEADWAY=/path/to/headway) and GNU time at /usr/bin/time.
set -euo pipefail
headway=${HEADWAY:-headway}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
total=0
printf '%-14s %10s\n' reproduction "wall (s)"
for paper in anticipatory cello rotational flash-backed freeblock; do
    /usr/bin/time -f '%e' -o "$out/$paper.time" \
        "$headway" reproduce "$paper" --no-plots --out "$out/$paper" "$@" > /dev/null
    s=$(cat "$out/$paper.time")
    total=$(python3 -c "print(round($total + $s, 2))")
    printf '%-14s %10s\n' "$paper" "$s"
done
printf '%-14s %10s\n' total "$total"
printf 'cores: %s; load average before the last run: %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
