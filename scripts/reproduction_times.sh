#!/usr/bin/env bash
# Wall time of each full paper reproduction (default seeds) and of all of them together,
# one after another on this machine, with the CPU time each used (its worker processes
# included: on a busy machine the CPU time is the steadier figure; wall time on an idle
# machine is at least CPU time / cores). Speed is measured here, never in a unit test.
#   scripts/reproduction_times.sh [extra options for every reproduction, e.g. --seeds 1]
# Needs `headway` on PATH (or HEADWAY=/path/to/headway) and GNU time at /usr/bin/time.
set -euo pipefail
headway=${HEADWAY:-headway}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
total=0
cpu_total=0
printf '%-14s %10s %10s\n' reproduction "wall (s)" "CPU (s)"
for paper in anticipatory cello rotational flash-backed freeblock; do
    /usr/bin/time -f '%e %U %S' -o "$out/$paper.time" \
        "$headway" reproduce "$paper" --no-plots --out "$out/$paper" "$@" > /dev/null
    read -r s user sys < "$out/$paper.time"
    cpu=$(python3 -c "print(round($user + $sys, 2))")
    total=$(python3 -c "print(round($total + $s, 2))")
    cpu_total=$(python3 -c "print(round($cpu_total + $cpu, 2))")
    printf '%-14s %10s %10s\n' "$paper" "$s" "$cpu"
done
printf '%-14s %10s %10s\n' total "$total" "$cpu_total"
printf 'cores: %s; load average before the last run: %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
