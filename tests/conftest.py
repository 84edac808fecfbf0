"""Shared helpers: small experiments and a way to run the installed `headway` command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
EXAMPLES = ROOT / "examples"
# The project's reference data (not shipped): tests that read it skip with a reason when it is
# absent. HEADWAY_SHARED, or a shared folder beside the clone or above it.
SHARED = Path(os.environ.get("HEADWAY_SHARED") or next(
    (p / "shared" for p in ROOT.parents if (p / "shared" / "reference").is_dir()), ROOT.parent / "shared"))
# A drive file in headway's own TOML form, for tests that load drives from files.
ELITE3_TOML = ROOT / "crates" / "headway" / "catalog" / "elite3.toml"


def default_config() -> Dict[str, Any]:
    """The built-in default experiment, parsed (its drive changes when the catalog grows)."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]

    return tomllib.loads((EXAMPLES / "default.toml").read_text())


def small(requests: int = 300, scheduler: str = "fcfs", seed: int = 1, **workload: Any) -> Dict[str, Any]:
    """A quick experiment on the Elite 3 (one zone, no cache: quick to simulate and to reason about)."""
    wl = {"requests": requests, "interarrival_ms": 15.0}
    wl.update(workload)
    return {"seed": seed, "drive": {"name": "elite3"}, "host": {"scheduler": scheduler}, "workload": wl}


def _headway_command() -> list:
    exe = shutil.which("headway", path=str(Path(sys.executable).parent)) or shutil.which("headway")
    return [exe] if exe else [sys.executable, "-m", "headway"]


def headway_cli(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the installed `headway` command; never raises on a non-zero exit."""
    return subprocess.run(
        [*_headway_command(), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def cli():
    return headway_cli


def reproduce_quick(tmp_path_factory, study: str, *options: str):
    """`headway reproduce STUDY --quick` into a fresh folder; (that folder, what it printed),
    having checked it wrote nothing to stderr (not a terminal here). No time limit: a quick reproduction can take minutes on a busy machine."""
    out = tmp_path_factory.mktemp(study.replace("-", "_"))
    r = headway_cli("reproduce", study, "--quick", *options, "--out", str(out), timeout=None)
    assert r.returncode == 0, r.stderr
    # Progress is for a terminal: with stderr captured, a reproduction writes nothing there.
    assert r.stderr == "", r.stderr
    return out, r.stdout


def doc_anchor_exists(ref: str) -> bool:
    """Whether ``docs/page.md#anchor`` names a page of the repository and one of its
    headings (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens) or an
    ``<a id="anchor"></a>`` in it."""
    import re

    page, _, anchor = ref.partition("#")
    path = ROOT / page
    if not path.is_file():
        return False
    slugs = {
        re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }
    text = path.read_text(encoding="utf-8")
    return anchor in slugs or f'<a id="{anchor}"></a>' in text


def assert_claims_explained(out: Path, stdout: str) -> None:
    """A reproduction's headline says, row by row, whether headway reproduces the paper, and
    every row that does not points to an existing section of the docs saying why."""
    import json

    claims = json.loads((out / "headline.json").read_text())["claims"]
    assert claims
    for c in claims:
        assert c["verdict"] in ("yes", "partly", "no", "-"), c
        if c["paper"] == "":  # nothing to compare with
            assert c["verdict"] == "-", c
        if c["verdict"] in ("partly", "no"):
            assert doc_anchor_exists(c["why"]), c
        else:
            assert c["why"] == "", c
    assert "repro" in stdout and "whether headway reproduces the paper's figure" in " ".join(stdout.split())


def fuzz_settings(max_examples: int):
    """Hypothesis settings for the API fuzzers: a fixed number of derandomised examples (the
    same inputs on every run, so a failure in CI reproduces locally), no per-example deadline
    (a simulation may legitimately take a while)."""
    from hypothesis import HealthCheck, settings

    return settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        derandomize=True,
    )


def fuzz_scalars(words: list, max_text: int):
    """Hypothesis values a fuzzer puts where a config expects one value: nothing, booleans,
    integers past 64 bits, every float, short text and the `words` a valid file would hold."""
    from hypothesis import strategies as st

    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=max_text),
        st.sampled_from(words),
    )


def assert_paper_hw(out: Path, keys) -> None:
    """A reproduction's headline on the paper's hardware: ``paper_hw`` names catalog drives
    behind named interfaces, and each of ``keys`` (every ``_paper_hw`` key there is) is
    finite, with a finite ``_ci95`` interval."""
    import json
    import math

    import headway

    h = json.loads((out / "headline.json").read_text(encoding="utf-8"))["headline"]
    drives = set(headway.disks()["name"])
    interfaces = {i["name"] for i in headway.interfaces()}
    for part in h["paper_hw"].split("; faster platform "):
        drive, _, interface = part.partition(" on ")
        assert drive in drives and interface in interfaces, h["paper_hw"]
    assert {k for k in h if k.endswith("_paper_hw")} == set(keys)
    for k in keys:
        assert math.isfinite(h[k]) and math.isfinite(h[k + "_ci95"]), (k, h.get(k))


def wait_for_nbdfuse_mount(fuse: subprocess.Popen, mount: Path) -> Path:
    """The export file nbdfuse serves under ``mount`` once it appears; the test is skipped,
    with nbdfuse's own message, when nbdfuse exits or 20 s pass without it."""
    deadline = time.monotonic() + 20
    while not (mount / "nbd").exists():
        if fuse.poll() is not None or time.monotonic() > deadline:
            why = fuse.stderr.read() if fuse.poll() is not None else "timed out"
            pytest.skip(f"nbdfuse cannot mount in this container: {why}")
        time.sleep(0.1)
    return mount / "nbd"
