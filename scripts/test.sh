#!/usr/bin/env bash
# The whole test suite, from a fresh clone: builds and installs the Python package (release
# build of the Rust core) with its test extra into a virtualenv, then runs the Rust tests and
# the pytest suite. Everything it needs comes from PyPI and crates.io.
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

echo "== pytest"
python -m pytest
