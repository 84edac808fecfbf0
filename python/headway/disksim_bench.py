"""The reference benchmark run by a DiskSim 4.0 binary the user built, beside headway, in
one session (``headway bench --vs-disksim PATH``): the only way a speed ratio means
anything, since machines differ by a third from day to day.

DiskSim gets the drive headway simulates: the Atlas 10K from the parameter files headway
embeds, with the drive queue opened to 64 and the drive's own policy set to FCFS (1) or
SPTF (8), exactly as ``shared/bench``'s ``trace_*_q64`` files. DiskSim also needs its
``statdefs`` file (in its source tree's ``valid/`` folder), found next to the binary.
"""

from __future__ import annotations

import re
import resource
import subprocess
import time
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple, TypeVar

from headway.errors import ConfigError

__all__ = ["DISKSIM_POLICY", "Timing", "find_statdefs", "prepare", "run_disksim", "time_headway_process"]

# DiskSim's ioqueue policy numbers for the benchmark's schedulers.
DISKSIM_POLICY = {"fcfs": 1, "sptf": 8}
QUEUE_DEPTH = 64


def find_statdefs(binary: Path) -> Path:
    """DiskSim's ``statdefs``, looked for where a DiskSim source build keeps it."""
    here = binary.resolve().parent
    candidates = [here / "statdefs", here.parent / "valid" / "statdefs", here.parent.parent / "valid" / "statdefs"]
    for c in candidates:
        if c.is_file():
            return c
    raise ConfigError(
        f"--vs-disksim {binary}: cannot find DiskSim's statdefs (looked in "
        + ", ".join(str(c.parent) for c in candidates)
        + "); run DiskSim from its source tree, where valid/statdefs is"
    )


def _edit(text: str, pattern: str, replacement: str, what: str) -> str:
    out, n = re.subn(pattern, replacement, text, flags=re.MULTILINE)
    if n != 1:
        raise RuntimeError(f"atlas10k DiskSim files: expected one `{what}`, found {n}")
    return out


def prepare(workdir: Path, binary: Path) -> Dict[str, Path]:
    """Write the DiskSim setup into ``workdir``; returns the ``.parv`` per scheduler."""
    from headway import _headway

    workdir.mkdir(parents=True, exist_ok=True)
    for name in ("atlas10k.model", "atlas10k.seek"):
        (workdir / name).write_text(_headway.disksim_file(name), encoding="ascii")
    (workdir / "statdefs").write_bytes(find_statdefs(binary).read_bytes())
    diskspecs = _headway.disksim_file("atlas10k.diskspecs")
    parv = _headway.disksim_file("atlas10k.parv")
    # No per-request output trace: DiskSim's benchmark runs do not write one.
    parv = _edit(parv, r",\s*\n\s*Output file for trace of I/O requests simulated = \S+", "", "output trace line")
    out = {}
    for scheduler, policy in DISKSIM_POLICY.items():
        specs = _edit(diskspecs, r"(Max queue length = )\d+", rf"\g<1>{QUEUE_DEPTH}", "Max queue length")
        specs = _edit(specs, r"(Scheduling policy = )\d+", rf"\g<1>{policy}", "Scheduling policy")
        (workdir / f"bench_{scheduler}.diskspecs").write_text(specs, encoding="ascii")
        text = _edit(parv, r"^source atlas10k\.diskspecs$", f"source bench_{scheduler}.diskspecs", "source line")
        path = workdir / f"bench_{scheduler}.parv"
        path.write_text(text, encoding="ascii")
        out[scheduler] = path
    return out


def _requests_handled(outv: Path) -> Optional[int]:
    m = re.search(r"^IOdriver Total Requests handled:\s+(\d+)", outv.read_text(errors="replace"), re.MULTILINE)
    return int(m.group(1)) if m else None


class Timing(NamedTuple):
    """One whole process: the wall time a user waits, and its CPU time (user + system, the
    process and its threads). On a shared machine the two part ways: wall time counts the
    waits for a core, CPU time the work, inflated less by neighbours' load."""

    wall_s: float
    cpu_s: float


def _children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


T = TypeVar("T")


def _timed(run: Callable[[], T]) -> Tuple[Timing, T]:
    # The children's CPU clock moves only when a child is reaped, and the bench reaps one
    # child at a time on this thread, so the difference is that child's alone.
    cpu0, start = _children_cpu_s(), time.perf_counter()
    out = run()
    wall_s = time.perf_counter() - start
    return Timing(wall_s, _children_cpu_s() - cpu0), out


def run_disksim(binary: Path, parv: Path, trace: Path, requests: int) -> Timing:
    """Wall and CPU seconds of one DiskSim run of ``trace``; checks it simulated the trace
    (DiskSim stops when the trace ends, so the requests still queued then are not counted)."""
    outv = parv.with_suffix(".outv")
    timing, done = _timed(lambda: subprocess.run(
        [str(binary), parv.name, outv.name, "ascii", str(trace.resolve()), "0"],
        cwd=parv.parent,
        capture_output=True,
        text=True,
    ))
    if done.returncode != 0:
        tail = "; ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise ConfigError(f"--vs-disksim {binary}: DiskSim exited with {done.returncode}: {tail}")
    handled = _requests_handled(outv)
    if handled is None or handled < 0.99 * requests:
        raise ConfigError(f"--vs-disksim {binary}: DiskSim handled {handled} of {requests} requests (see {outv})")
    return timing


def time_headway_process(config_args: List[str]) -> Timing:
    """Wall and CPU seconds of a whole ``headway replay`` process: what a user waits for."""
    import sys

    timing, _ = _timed(
        lambda: subprocess.run([sys.executable, "-m", "headway", "replay", *config_args, "-q"], check=True)
    )
    return timing
