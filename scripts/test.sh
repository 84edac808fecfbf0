#!/usr/bin/env bash
# The whole test suite, from a fresh clone: builds and installs the Python package (release
# build of the Rust core) with its test extra into a virtualenv, then runs the Rust tests, a
# short fuzzing pass (scripts/fuzz.sh: needs the nightly toolchain and cargo-fuzz, which it
# installs from crates.io; about half of a warm run) and the pytest suite. Everything it
# needs comes from PyPI and crates.io.
#
# Every step runs even when one before it fails (a step that needs a failed one is reported
# as not run), and the last section always says what failed, which steps did not run, and
# every check that did not run with its reason; the exit code is non-zero when a step failed.
# Tests that need the project's reference data (not shipped) are reported as ignored or
# skipped with their reason; when that data sits beside the clone (../shared, or
# HEADWAY_SHARED=path) they run in a step of their own.
#
#   bash scripts/test.sh            the full suite (what CI runs, .ci/run)
#   bash scripts/test.sh --fast     for a quick local check: no fuzzing, no reference-data
#                                   step, and the package is not reinstalled when installed
#   (HEADWAY_VENV=path to use another virtualenv)
set -uo pipefail
cd "$(dirname "$0")/.."

fast=no
for arg in "$@"; do
    case "$arg" in
        --fast) fast=yes ;;
        *) echo "usage: bash scripts/test.sh [--fast]" >&2; exit 2 ;;
    esac
done

venv="${HEADWAY_VENV:-.venv}"
if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
fi
# shellcheck disable=SC1091
. "$venv/bin/activate"

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

failed=()
not_run=()

# Runs "$@" as the step named $1, noting a failure; returns its status.
step() {
    local name="$1"
    shift
    echo "== $name"
    "$@"
    local status=$?
    if [ "$status" -ne 0 ]; then
        failed+=("$name (exit $status)")
    fi
    return "$status"
}

# Runs "$@", shows its output without the lines of passing Rust tests, keeps it all in $log.
run_logged() {
    local log="$1"
    shift
    "$@" 2>&1 | tee "$log" | grep -v -E '^test .* \.\.\. ok$'
    return "${PIPESTATUS[0]}"
}

installed=yes
if [ "$fast" = yes ] && python -c "import headway._headway" 2>/dev/null; then
    echo "== pip install: skipped (--fast, headway is installed; rebuild after changing Rust)"
else
    step "pip install .[test] (release build of the extension)" \
        python -m pip install --quiet --disable-pip-version-check ".[test]" || installed=no
fi

step "cargo fmt --check" cargo fmt --all -- --check

# Not --quiet, so each ignored test prints its reason.
step "cargo test --workspace" run_logged "$logs/cargo" cargo test --workspace

shared="${HEADWAY_SHARED:-../shared}"
ran_shared=no
if [ "$fast" = yes ]; then
    not_run+=("the reference-data step (--fast)")
elif [ -d "$shared/reference" ]; then
    shared="$(cd "$shared" && pwd)"
    # --workspace, as above: with -p the features unify differently and every test binary
    # is built a second time (twice the disk and the time).
    HEADWAY_SHARED="$shared" step "cargo test: the tests that need the reference data ($shared)" \
        run_logged "$logs/shared" cargo test --workspace --no-fail-fast -- --ignored shared_data::
    ran_shared=yes
fi

# Coverage-guided fuzzing of every parser, a bounded time per target (docs/reliability.md).
# Needs nightly and cargo-fuzz (installed from crates.io when missing); skipped, saying why,
# where they cannot be had. A crash fails the suite.
fuzz_seconds="${HEADWAY_FUZZ_SECONDS:-20}"
if [ "$fast" = yes ]; then
    not_run+=("fuzz (--fast)")
else
    echo "== fuzz (${fuzz_seconds} s a target)"
    bash scripts/fuzz.sh "$fuzz_seconds"
    fuzz_status=$?
    if [ "$fuzz_status" -eq 3 ]; then
        not_run+=("fuzz: no nightly toolchain, or cargo-fuzz could not be installed (see above)")
    elif [ "$fuzz_status" -ne 0 ]; then
        failed+=("fuzz (exit $fuzz_status)")
    fi
fi

touch "$logs/pytest"
if [ "$installed" = yes ]; then
    HEADWAY_SHARED="$shared" step "pytest" run_logged "$logs/pytest" python -m pytest -rs
else
    not_run+=("pytest: the package did not install")
fi

echo "== checks that did not run"
# Each ignored test with its file and reason, e.g.
# "tests/integration/catalog.rs shared_data::x: needs ...". The integration tests are one binary
# (tests/integration/main.rs), a module per file: a test's first path segment names its file.
touch "$logs/cargo"
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
for s in ${not_run[@]+"${not_run[@]}"}; do
    echo "step not run: $s"
done
if [ "${#failed[@]}" -gt 0 ]; then
    for s in "${failed[@]}"; do
        echo "FAILED: $s"
    done
    exit 1
fi
echo "every step passed"
