"""docs/getting-started.md's commands are true: each command of its shell blocks runs, in
order, from a folder laid out as a clone's top folder (its examples and the shipped
traces), and succeeds. `pip install .` is what this suite was installed with, so it is
not run again."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

from conftest import ROOT, _headway_command

PAGE = ROOT / "docs" / "getting-started.md"


def commands():
    blocks = re.findall(r"```bash\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_every_command_of_the_page_runs(tmp_path):
    found = commands()
    assert found[0] == "pip install ." and any(c.startswith("headway reproduce") for c in found)
    for name in ("examples", "crates"):
        (tmp_path / name).symlink_to(ROOT / name)
    env = dict(os.environ, MPLBACKEND="Agg")
    for line in found[1:]:
        words = shlex.split(line)
        program = {"headway": _headway_command(), "python": [sys.executable]}[words[0]]
        done = subprocess.run([*program, *words[1:]], cwd=tmp_path, capture_output=True, text=True, env=env,
                              timeout=900, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, f"{line}\n{done.stderr[-2000:]}"
    assert (tmp_path / "sweep-out" / "summary.parquet").is_file()
    assert (tmp_path / "cello-out" / "headline.json").is_file()


def test_the_docs_map_names_every_page():
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md") if p.name != "README.md")
    missing = [p for p in pages if f"]({p})" not in index]
    assert not missing, f"docs/README.md does not say what these pages answer: {missing}"
