#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (default 25), seeded from fuzz/seeds/, growing the
# working corpus in fuzz/corpus/ (not committed). Needs a nightly toolchain and cargo-fuzz;
# installs cargo-fuzz from crates.io when it is missing. Exits non-zero on the first crash,
# leaving the input in fuzz/artifacts/TARGET/ (copy it to fuzz/regressions/TARGET/, where
# crates/headway/tests/integration/fuzz_regressions.rs replays it on stable). Prints executions per target.
#
#   bash scripts/fuzz.sh            # 25 s a target (CI)
#   bash scripts/fuzz.sh 600        # longer
#   FUZZ_TARGETS="trace csv_map" bash scripts/fuzz.sh 60
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-25}"
targets="${FUZZ_TARGETS:-experiment_toml drive_toml disksim_params disksim_seek trace csv_map whole_run nbd_request}"
# Generous enough for a DiskSim run configuration with the files it sources.
max_len=65536
# libFuzzer's own cap on one input's memory; a parser that needs more is a finding.
rss_limit_mb=1024

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "fuzz: no nightly toolchain (rustup toolchain install nightly)" >&2
    exit 3
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "== cargo install cargo-fuzz (from crates.io)"
    cargo install --quiet --locked cargo-fuzz || { echo "fuzz: cannot install cargo-fuzz" >&2; exit 3; }
fi

cd fuzz
echo "== cargo fuzz build (nightly, release with debug assertions)"
nice -n 10 cargo +nightly fuzz build -O -a
for t in $targets; do
    mkdir -p "corpus/$t"
    # Inputs that once crashed a target seed it too.
    extra=()
    if [ -d "regressions/$t" ]; then extra=("regressions/$t"); fi
    log="$(mktemp)"
    if ! cargo +nightly fuzz run -O -a "$t" "corpus/$t" "seeds/$t" "${extra[@]}" -- \
        -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb="$rss_limit_mb" \
        -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
        tail -40 "$log"
        echo "fuzz: target $t FAILED; its input is in fuzz/artifacts/$t/" >&2
        exit 1
    fi
    execs="$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')"
    cov="$(grep -o 'cov: [0-9]*' "$log" | tail -1)"
    echo "fuzz: $t: ${execs:-?} executions in ${seconds} s, ${cov:-cov: ?}, no crash"
    rm -f "$log"
done
# The harnesses' scratch folders (one per fuzzing process, `headway-fuzz-PID-THREAD`): remove
# those whose process has ended.
for d in /dev/shm/headway-fuzz-* "${TMPDIR:-/tmp}"/headway-fuzz-*; do
    [ -d "$d" ] || continue
    pid="${d##*/headway-fuzz-}"
    pid="${pid%%-*}"
    kill -0 "$pid" 2>/dev/null || rm -rf "$d"
done
