"""Every Python snippet of the README, saved as a script and run as a user would run it
(`python snippet.py`, no `if __name__ == "__main__":` guard), works: from a folder holding
the files the snippets name."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT

SNIPPET = re.compile(r"```python\n(.*?)```", re.S)


def snippets():
    return SNIPPET.findall((ROOT / "README.md").read_text(encoding="utf-8"))


def _files_the_snippets_name(folder: Path) -> None:
    shutil.copytree(EXAMPLES, folder / "examples")
    (folder / "experiment.toml").write_text((EXAMPLES / "default.toml").read_text().replace("20000", "2000"))
    # An SPC trace (ASU, LBA, bytes, opcode, seconds) and an MSR Cambridge one.
    spc = "".join(f"0,{(i * 7919) % 100000},4096,{'r' if i % 3 else 'w'},{i * 0.01:.6f}\n" for i in range(200))
    with gzip.open(folder / "web.spc.gz", "wt") as f:
        f.write(spc)
    msr = "".join(
        f"{128166372000000000 + i * 100000},hm,0,{'Read' if i % 3 else 'Write'},{(i * 7919 % 100000) * 512},4096,500\n"
        for i in range(200)
    )
    (folder / "msr.csv").write_text(msr)


def test_the_readme_has_its_snippets():
    found = snippets()
    assert len(found) >= 3
    assert any("headway.sweep(" in s for s in found)


@pytest.mark.parametrize("index", range(len(snippets())))
def test_readme_snippet_runs_as_a_script(tmp_path, index):
    code = snippets()[index]
    _files_the_snippets_name(tmp_path)
    script = tmp_path / f"snippet_{index}.py"
    script.write_text(code)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, script.name], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"README snippet {index} failed:\n{code}\n--- stderr:\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr
