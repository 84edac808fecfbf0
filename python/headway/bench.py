"""The reference benchmark: one million random 4 KiB reads, uniform over the Quantum Atlas
10K's 17,938,986 sectors (8-sector aligned, exponential inter-arrival times, DiskSim ASCII
format), replayed on the Atlas 10K with FCFS and SPTF over a queue of 64, timed as requests
simulated per second of wall time.

The traces are generated with the same algorithm and random stream as the project's
DiskSim input generator (``gen_ascii_trace.py``, Python's ``random.Random(seed)``), so the
files are byte-identical to the ones DiskSim 4.0 ran for its published figures; the
generator lives in ``headway._bench_trace`` (standard library only, so the instruction-count
script can use it without the compiled extension).
"""

from __future__ import annotations

import os
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, List, Optional

from headway._bench_trace import LOADS, Load, write_trace
from headway._write import replacing
from headway.api import run

__all__ = ["Load", "LOADS", "CASES", "QUEUES", "SETUPS", "CaseResult", "write_trace", "cached_trace", "run_bench"]

# (scheduler, load, DiskSim 4.0's requests/s): DiskSim 4.0 (64-bit, gcc -O2, one thread)
# on the same 1M-request traces, median of 3 runs, on another machine (a 2-core VM; runs
# there varied by up to 30%, and by a third from day to day). Shown for scale only: a
# ratio counts only when both simulators ran on one machine, back to back.
CASES = [("fcfs", "moderate", 67_900), ("sptf", "moderate", 60_300), ("sptf", "heavy", 39_600)]

# Where the queue is ordered. "drive" is DiskSim's setup: the host passes every request on
# (FCFS) to a drive queue of 64 ordered by the drive's own scheduler. "host": an unbounded
# host queue ordered by the host's scheduler, one command at the drive at a time.
QUEUES = ("drive", "host")
SETUPS = {
    "drive": "atlas10k, drive queue of 64 ordered by the drive's own scheduler, host FCFS (DiskSim's setup)",
    "host": "atlas10k, host queue unbounded, drive queue depth 1",
}


def cache_dir() -> Path:
    """Where generated traces are kept between runs: ``$HEADWAY_CACHE_DIR``, else the user
    cache folder."""
    explicit = os.environ.get("HEADWAY_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "headway"


def cached_trace(requests: int, load: Load, folder: Optional[Path] = None) -> Path:
    """The trace for ``load``, generated on first use and kept in ``folder`` (default:
    :func:`cache_dir`).

    >>> import tempfile
    >>> p = cached_trace(3, LOADS["heavy"], Path(tempfile.mkdtemp()))
    >>> p.name, len(p.read_text().splitlines())
    ('rand4k_3_ia5.5_seed2.trace', 3)
    """
    folder = (folder or cache_dir()) / "bench"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rand4k_{requests}_ia{load.interarrival_ms:g}_seed{load.seed}.trace"
    if not path.exists():
        with replacing(path) as tmp, open(tmp, "w", encoding="ascii", newline="\n") as f:
            write_trace(f, requests, load.interarrival_ms, load.seed)
    return path


def replay_config(trace: Path, scheduler: str, queue: str = "drive") -> dict:
    if queue == "drive":
        drive = {"name": "atlas10k", "queue_depth": 64, "firmware_scheduler": scheduler}
        host = {"scheduler": "fcfs"}
    elif queue == "host":
        drive, host = {"name": "atlas10k", "queue_depth": 1}, {"scheduler": scheduler}
    else:
        raise ValueError(f"queue must be one of {QUEUES}, not {queue!r}")
    return {
        "name": f"bench {scheduler} {trace.name} ({queue} queue)",
        "drive": drive,
        "host": host,
        "workload": {"kind": "trace", "path": os.fspath(trace), "format": "disksim-ascii", "speed": 1.0},
    }


@dataclass
class CaseResult:
    """One benchmark case: wall time of each repeat of the simulation.
    ``disksim_requests_per_s`` is DiskSim 4.0's published figure, measured on a different
    machine: there is deliberately no ratio to it."""

    scheduler: str
    load: str
    requests: int
    wall_s: List[float] = field(default_factory=list)
    disksim_requests_per_s: Optional[int] = None
    queue: str = "drive"
    # With a DiskSim binary (``--vs-disksim``), timed on this machine too: DiskSim's whole
    # process, and headway's whole `headway replay` process.
    disksim_wall_s: List[float] = field(default_factory=list)
    process_wall_s: List[float] = field(default_factory=list)
    # The same two processes' CPU time (user + system), repeat by repeat.
    disksim_cpu_s: List[float] = field(default_factory=list)
    process_cpu_s: List[float] = field(default_factory=list)

    @property
    def median_wall_s(self) -> float:
        return statistics.median(self.wall_s)

    @property
    def requests_per_s(self) -> float:
        """Requests simulated per second of wall time, median over repeats."""
        return self.requests / self.median_wall_s

    @property
    def measured(self) -> bool:
        """Whether DiskSim ran here, beside headway (`--vs-disksim`)."""
        return bool(self.disksim_wall_s)

    @property
    def ratio(self) -> Optional[float]:
        """Core speed over DiskSim's, only when DiskSim ran here beside headway: a ratio
        against figures from another machine would say nothing about this one."""
        if not self.measured:
            return None
        return statistics.median(self.disksim_wall_s) / self.median_wall_s

    @property
    def end_to_end_ratio(self) -> Optional[float]:
        """DiskSim's process time over headway's whole `headway replay` process."""
        if not (self.measured and self.process_wall_s):
            return None
        return statistics.median(self.disksim_wall_s) / statistics.median(self.process_wall_s)

    @property
    def cpu_ratios(self) -> List[float]:
        """DiskSim's CPU time over headway's whole process's, repeat by repeat: each pair ran
        back to back, so a machine whose speed drifts during the run (a shared one) moves
        both sides of a pair alike."""
        return [d / h for d, h in zip(self.disksim_cpu_s, self.process_cpu_s) if h > 0]

    @property
    def cpu_ratio(self) -> Optional[float]:
        """The median of :attr:`cpu_ratios`: the whole-process CPU ratio."""
        ratios = self.cpu_ratios
        return statistics.median(ratios) if ratios else None

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(requests_per_s=self.requests_per_s, setup=SETUPS[self.queue])
        if self.measured:
            d.update(
                ratio_to_disksim=self.ratio,
                end_to_end_ratio_to_disksim=self.end_to_end_ratio,
                end_to_end_cpu_ratio_to_disksim=self.cpu_ratio,
                disksim_measured_here=True,
            )
        return d


def run_bench(
    requests: int = 1_000_000,
    repeat: int = 3,
    folder: Optional[Path] = None,
    on_case: Optional[Callable[[CaseResult], None]] = None,
    queue: str = "drive",
    disksim: Optional[Path] = None,
) -> List[CaseResult]:
    """Run every case ``repeat`` times; only the simulation itself is timed (the wall clock
    the core measures around its run loop, which includes reading the trace). ``queue`` is
    ``"drive"`` (DiskSim's setup: the drive's own scheduler over a queue of 64) or ``"host"``
    (the host's scheduler, one command at the drive at a time). ``disksim``: a DiskSim 4.0
    binary to time on the same traces on this machine, with headway's whole process,
    each repeat running headway, headway's process and DiskSim in turn (drive queue only).

    >>> [(c.scheduler, c.load) for c in run_bench(requests=1000, repeat=1)]
    [('fcfs', 'moderate'), ('sptf', 'moderate'), ('sptf', 'heavy')]
    """
    parvs = {}
    if disksim is not None:
        from headway import disksim_bench

        if queue != "drive":
            raise ValueError("--vs-disksim runs DiskSim's setup: the drive queue (--queue drive)")
        parvs = disksim_bench.prepare((folder or cache_dir()) / "bench" / "disksim", disksim)
    results = []
    for scheduler, load_name, reference in CASES:
        trace = cached_trace(requests, LOADS[load_name], folder)
        case = CaseResult(scheduler, load_name, requests, disksim_requests_per_s=reference, queue=queue)
        for _ in range(repeat):
            if disksim is not None:
                ds = disksim_bench.run_disksim(disksim, parvs[scheduler], trace, requests)
                hw = disksim_bench.time_headway_process(
                    [str(trace), "--format", "disksim-ascii", "--drive", "atlas10k",
                     "--queue-depth", "64", "--firmware-scheduler", scheduler]
                )
                case.disksim_wall_s.append(ds.wall_s)
                case.disksim_cpu_s.append(ds.cpu_s)
                case.process_wall_s.append(hw.wall_s)
                case.process_cpu_s.append(hw.cpu_s)
            r = run(replay_config(trace, scheduler, queue))
            if r.summary.requests != requests:
                raise RuntimeError(
                    f"{scheduler}/{load_name}: simulated {r.summary.requests} of {requests} requests"
                )
            case.wall_s.append(r.meta["sim_wall_s"])
        if on_case:
            on_case(case)
        results.append(case)
    return results
