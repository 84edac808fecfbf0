#!/usr/bin/env bash
# The whole test suite, from a fresh clone: builds and installs the Python package (release
# build of the Rust core) with its test extra into a virtualenv, then runs the Rust tests, a
# short fuzzing pass (scripts/fuzz.sh) and the pytest suite. Everything it needs comes from
# PyPI and crates.io.
#
# Tests that need the project's reference data (not shipped) are reported as ignored or
# skipped with their reason; when that data sits beside the clone (../shared, or
# HEADWAY_SHARED=path) they run in a step of their own. The last section counts every check
# that did not run, and says why.
#
#   bash scripts/test.sh            (HEADWAY_VENV=path to use another virtualenv)
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${HEADWAY_VENV:-.venv}"
if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
fi
# shellcheck disable=SC1091
. "$venv/bin/activate"

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

# Runs "$@", shows its output without the lines of passing Rust tests, keeps it all in $log.
run_logged() {
    local log="$1"
    shift
    set +e
    "$@" 2>&1 | tee "$log" | grep -v -E '^test .* \.\.\. ok$'
    local status="${PIPESTATUS[0]}"
    set -e
    return "$status"
}

echo "== pip install .[test] (release build of the extension)"
python -m pip install --quiet --disable-pip-version-check ".[test]"

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo test --workspace"
# Not --quiet, so each ignored test prints its reason.
run_logged "$logs/cargo" cargo test --workspace

shared="${HEADWAY_SHARED:-../shared}"
ran_shared=no
if [ -d "$shared/reference" ]; then
    shared="$(cd "$shared" && pwd)"
    echo "== cargo test: the tests that need the reference data ($shared)"
    # --workspace, as above: with -p the features unify differently and every test binary
    # is built a second time (twice the disk and the time).
    HEADWAY_SHARED="$shared" run_logged "$logs/shared" \
        cargo test --workspace --no-fail-fast -- --ignored shared_data::
    ran_shared=yes
fi

# Coverage-guided fuzzing of every parser, a bounded time per target (docs/reliability.md).
# Needs nightly and cargo-fuzz (installed from crates.io when missing); skipped, saying why,
# where they cannot be had. A crash fails the suite.
fuzz_seconds="${HEADWAY_FUZZ_SECONDS:-20}"
echo "== fuzz (${fuzz_seconds} s a target)"
fuzz_status=0
bash scripts/fuzz.sh "$fuzz_seconds" || fuzz_status=$?
if [ "$fuzz_status" -eq 3 ]; then
    echo "fuzz: SKIPPED: no nightly toolchain or cargo-fuzz could not be installed (see above)"
elif [ "$fuzz_status" -ne 0 ]; then
    exit "$fuzz_status"
fi

echo "== pytest"
HEADWAY_SHARED="$shared" run_logged "$logs/pytest" python -m pytest -rs

echo "== checks that did not run"
# Each ignored test with its file and reason, e.g.
# "tests/integration/catalog.rs shared_data::x: needs ...". The integration tests are one binary
# (tests/integration/main.rs), a module per file: a test's first path segment names its file.
rust_ignored="$(awk '/^ *Running /{bin = ($2 == "unittests") ? $3 : $2}
    /^test .* \.\.\. ignored/{
        sub(/^test /, ""); sub(/ \.\.\. ignored,? ?/, ": "); file = bin
        if (bin ~ /^tests\/integration\/main\.rs$/ && match($0, /^[a-z0-9_]+::/)) {
            file = "tests/integration/" substr($0, 1, RLENGTH - 2) ".rs"
            $0 = substr($0, RLENGTH + 1)
        }
        print file " " $0}' "$logs/cargo")"
rust_count="$(printf '%s' "$rust_ignored" | grep -c . || true)"
echo "Rust: $rust_count ignored"
[ -z "$rust_ignored" ] || printf '%s\n' "$rust_ignored" | sed 's/^/  /'
if [ "$ran_shared" = yes ]; then
    echo "  (those in shared_data modules then ran in the reference-data step above)"
fi
py_count="$(grep -E '^=+ .* in [0-9.]+s' "$logs/pytest" | tail -n 1 | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+' || true)"
echo "pytest: ${py_count:-0} skipped"
grep -E '^SKIPPED ' "$logs/pytest" | sed 's/^/  /' || true
echo "$((rust_count + ${py_count:-0})) checks did not run ($rust_count Rust ignored, ${py_count:-0} pytest skipped)"
