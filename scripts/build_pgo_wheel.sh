#!/usr/bin/env bash
# Build a profile-guided (PGO) release wheel of headway: an instrumented wheel, a training
# run of it on workloads headway generates itself (the reference benchmark's FCFS and SPTF
# cases at two loads, both queue setups, trace replays, and the example experiments, so the
# other drives and schedulers are not laid out as cold code), the profiles merged, and the
# final `maturin build --release` compiled with them. Needs nothing outside the repository
# but a Python with headway's dependencies (numpy, pandas, pyarrow, click, rich, ...),
# maturin, and rustc's own llvm-profdata (`rustup component add llvm-tools`). The plain
# `pip install .` does not use any of this (docs/performance.md, "Profile-guided builds").
#
#   bash scripts/build_pgo_wheel.sh                  # wheel in target/wheels-pgo/
#   bash scripts/build_pgo_wheel.sh --out DIR --requests 100000
#
# Environment: PYTHON (default python3), LLVM_PROFDATA (default: the one of the rustc that
# builds), CARGO_TARGET_DIR (default target/; the two builds go to its pgo-gen/ and pgo-use/).
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    echo "Options: --out DIR (where the wheel goes), --requests N (per training trace, default 200000), --help"
}

out=""
requests=200000
while [ $# -gt 0 ]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --out) out="${2:?--out needs a folder}"; shift 2 ;;
        --requests) requests="${2:?--requests needs a number}"; shift 2 ;;
        *) echo "build_pgo_wheel: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$requests" in
    '' | *[!0-9]* | 0*) echo "build_pgo_wheel: --requests must be a positive integer, not '$requests'" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."
repo="$PWD"
python="${PYTHON:-python3}"

# The profiles must be read by the LLVM of the rustc that compiles: rustup's llvm-tools ships
# exactly that one; a system llvm-profdata of another version cannot read rustc's profiles.
if [ -z "${LLVM_PROFDATA:-}" ]; then
    sysroot="$(rustc --print sysroot)"
    host="$(rustc -vV | sed -n 's/^host: //p')"
    LLVM_PROFDATA="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
fi
if [ ! -x "$LLVM_PROFDATA" ]; then
    echo "build_pgo_wheel: llvm-profdata not found at $LLVM_PROFDATA: install it with" \
        "'rustup component add llvm-tools' (or set LLVM_PROFDATA)" >&2
    exit 3
fi
if ! "$python" -m maturin --version >/dev/null 2>&1; then
    echo "build_pgo_wheel: maturin not found for $python: pip install maturin" >&2
    exit 3
fi

target="${CARGO_TARGET_DIR:-$repo/target}"
case "$target" in /*) ;; *) target="$repo/$target" ;; esac
gen="$target/pgo-gen"
profraw="$gen/profraw"
out="${out:-$target/wheels-pgo}"
case "$out" in /*) ;; *) out="$repo/$out" ;; esac
work="$(mktemp -d "${TMPDIR:-/tmp}/headway_pgo.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "== 1/4 instrumented wheel ($gen)"
RUSTFLAGS="-Cprofile-generate=$profraw" CARGO_TARGET_DIR="$gen" \
    "$python" -m maturin build --release --out "$work/gen-wheel" >"$work/gen-build.log" 2>&1 ||
    { tail -30 "$work/gen-build.log" >&2; echo "build_pgo_wheel: the instrumented build failed" >&2; exit 1; }
# Build scripts and procedural macros were instrumented too and wrote profiles while
# building: only the training run's profiles count.
rm -rf "$profraw"
mkdir -p "$profraw"
"$python" -m pip install --quiet --no-deps --no-compile --target "$work/site" "$work"/gen-wheel/*.whl

echo "== 2/4 training run ($requests requests a trace)"
train() {
    echo "   headway $*"
    # Not `python -m headway`: the command ends by os._exit, which skips the C exit handler
    # that writes the profile; headway.cli.main ends by SystemExit, a normal exit.
    PYTHONPATH="$work/site" HEADWAY_CACHE_DIR="$work/cache" \
        "$python" -c 'from headway.cli import main; main()' "$@" >/dev/null
}
# The reference benchmark (FCFS moderate, SPTF moderate and heavy), as DiskSim's setup
# (the drive's queue of 64) and with the host's queue; these are the hot paths users time.
train bench --requests "$requests" --repeat 1
train bench --requests "$((requests / 4 + 1))" --repeat 1 --queue host
# The same traces through `headway replay`: the trace reader and the summary around the core.
for t in "$work"/cache/bench/rand4k_"$requests"_ia*.trace; do
    train replay "$t" --format disksim-ascii --drive atlas10k --queue-depth 64
    train replay "$t" --format disksim-ascii --drive atlas10k --queue-depth 64 --firmware-scheduler sptf
done
# Every example experiment: other drives (Elite 3, hybrid, flash), wrappers, write-back.
for toml in examples/*.toml; do
    case "$toml" in */sweep.toml) continue ;; esac # a process pool: its workers may not flush profiles
    train run "$toml"
done

echo "== 3/4 merging the profiles"
# A name that changes with the profile's content, so cargo rebuilds when the profile changes.
if [ -z "$(ls -A "$profraw")" ]; then
    echo "build_pgo_wheel: the training run wrote no profile to $profraw" >&2
    exit 1
fi
"$LLVM_PROFDATA" merge -o "$work/merged.profdata" "$profraw"
sum="$(sha256sum "$work/merged.profdata" | cut -c1-16)"
profdata="$gen/headway-$sum.profdata"
mv "$work/merged.profdata" "$profdata"

echo "== 4/4 the final wheel with the profile ($target/pgo-use)"
RUSTFLAGS="-Cprofile-use=$profdata" CARGO_TARGET_DIR="$target/pgo-use" \
    "$python" -m maturin build --release --out "$out" >"$work/use-build.log" 2>&1 ||
    { tail -30 "$work/use-build.log" >&2; echo "build_pgo_wheel: the profile-guided build failed" >&2; exit 1; }
ls -1 "$out"/*.whl
echo "profile: $profdata; build folders $gen and $target/pgo-use can be deleted"
