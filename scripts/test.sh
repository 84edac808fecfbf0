#!/usr/bin/env bash
# The whole test suite, from a fresh clone: builds and installs the Python package (release
# build of the Rust core) with its test extra into a virtualenv, then runs the Rust tests, a
# short fuzzing pass (scripts/fuzz.sh) and the pytest suite. Everything it needs comes from
# PyPI and crates.io.
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

echo "== pip install .[test] (release build of the extension)"
python -m pip install --quiet --disable-pip-version-check ".[test]"

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo test --workspace"
cargo test --workspace --quiet

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
python -m pytest
