"""scripts/build_pgo_wheel.sh's own checks, which run before any build: the help, and the
clear messages for a missing llvm-profdata and a bad argument (the build itself needs
rustup's llvm-tools and minutes of compiling, so it is not run here)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "build_pgo_wheel.sh"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the script needs bash")


def _run(*args, env=None):
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60)


def test_help_names_the_tool_it_needs():
    done = _run("--help")
    assert done.returncode == 0
    assert "rustup component add llvm-tools" in done.stdout
    assert "--requests" in done.stdout


def test_missing_llvm_profdata_is_one_clear_line(tmp_path):
    env = dict(os.environ, LLVM_PROFDATA=str(tmp_path / "no-llvm-profdata"))
    done = _run(env=env)
    assert done.returncode == 3
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "rustup component add llvm-tools" in lines[0] and "no-llvm-profdata" in lines[0]


@pytest.mark.parametrize("args", [("--requests", "0"), ("--requests", "many"), ("--bogus",)])
def test_bad_arguments_are_refused_before_building(args):
    done = _run(*args)
    assert done.returncode == 2
    assert done.stderr.startswith("build_pgo_wheel: ")
