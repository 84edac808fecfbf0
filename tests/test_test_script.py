"""scripts/test.sh (the README's test command, what CI runs) goes on past a failing step
and always ends with its summary: what failed, which steps did not run, which checks were
ignored or skipped and why; its exit code is non-zero when a step failed. Run here with
stand-ins for cargo and Python that fail on purpose."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

from conftest import ROOT

CARGO = """#!/bin/sh
case "$1" in
  fmt) echo "Diff in src/x.rs"; exit 1 ;;
  test) echo "     Running tests/integration/main.rs (target/debug/deps/integration-1)"
        echo "test catalog::shared_data::real_trace ... ignored, needs the reference data"
        echo "test a::b ... ok"; exit 101 ;;
esac
exit 0
"""

PYTHON = """#!/bin/sh
if [ "$1" = "-c" ]; then exit 0; fi
if [ "$2" = "pytest" ]; then
  echo "SKIPPED [1] tests/test_x.py:3: needs the reference data"
  echo "==== 10 passed, 1 skipped in 1.00s ===="
  exit 0
fi
exit 0
"""


def _stub(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_a_failing_step_still_ends_with_the_summary(tmp_path):
    tree = tmp_path / "clone"
    (tree / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "test.sh", tree / "scripts" / "test.sh")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    _stub(venv / "bin" / "python", PYTHON)
    _stub(venv / "bin" / "cargo", CARGO)
    (venv / "bin" / "activate").write_text(f'PATH="{venv / "bin"}:$PATH"\n')
    env = dict(os.environ, HEADWAY_VENV=str(venv), HEADWAY_SHARED=str(tmp_path / "none"))
    done = subprocess.run(["bash", str(tree / "scripts" / "test.sh"), "--fast"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=120)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    # The steps after the failing ones ran.
    assert "== cargo test --workspace" in out and "== pytest" in out
    summary = out.split("== checks that did not run", 1)[1]
    assert "tests/integration/catalog.rs shared_data::real_trace: needs the reference data" in summary
    assert "tests/test_x.py:3: needs the reference data" in summary
    assert "2 checks did not run (1 Rust ignored, 1 pytest skipped)" in summary
    assert "step not run: fuzz (--fast)" in summary
    assert "FAILED: cargo fmt --check (exit 1)" in summary
    assert "FAILED: cargo test --workspace (exit 101)" in summary


def test_ci_runs_the_full_suite():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "bash scripts/test.sh" in ci and "--fast" not in ci
