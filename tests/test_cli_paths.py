"""headway.cli.paths.as_path: a path on the command line as pathlib writes it, without
loading pathlib when it is already written that way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from headway.cli.paths import as_path

from conftest import DATA


@given(st.text(alphabet="/.ab\\ ", max_size=12))
@example("")
@example(".")
@example("..")
@example("/")
@example("//")
@example("///a")
@example("//a/b")
@example("./a")
@example("a/.")
@example("a/./b")
@example("a//b")
@example("a/")
@example("a/..")
@example(".a")
@example("/a/b.trace")
def test_as_pathlib_writes_it(text):
    assert as_path(text) == (os.fspath(Path(text)), Path(text).name)


def test_a_plain_trace_path_loads_no_pathlib_and_another_does():
    code = (
        "import sys\nfrom headway.cli.paths import as_path\n"
        "print(as_path(sys.argv[1]), 'pathlib' in sys.modules)"
    )
    plain = subprocess.run([sys.executable, "-c", code, "traces/a.trace"], capture_output=True, text=True, check=True)
    assert plain.stdout.split() == ["('traces/a.trace',", "'a.trace')", "False"]
    odd = subprocess.run([sys.executable, "-c", code, "./traces//a.trace/"], capture_output=True, text=True, check=True)
    assert odd.stdout.split() == ["('traces/a.trace',", "'a.trace')", "True"]


def test_replay_names_the_trace_as_pathlib_writes_it(cli):
    # An odd spelling of the path: the run's name and the error's file are pathlib's.
    out = cli("replay", f"{DATA}/.//bad_line3.trace/", "--drive", "elite3")
    assert out.returncode == 1
    assert out.stderr.startswith(f"error: {DATA / 'bad_line3.trace'}:3")
    ok = cli("replay", "./small.trace", "--drive", "elite3", "--no-progress", cwd=DATA)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.splitlines()[0] == "replay small.trace"
