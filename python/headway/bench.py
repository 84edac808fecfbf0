"""The reference benchmark (``shared/bench/README.md``): random 4 KiB reads replayed on a
Quantum Atlas 10K, FCFS and SPTF, timed as requests simulated per second of wall time.

The traces are generated with the same algorithm and random stream as DiskSim's input
generator (``gen_ascii_trace.py``: Python's ``random.Random(seed)``), so the files are
byte-identical to the ones DiskSim ran.
"""

from __future__ import annotations

import os
import random
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, TextIO

from headway.api import run

__all__ = ["Load", "LOADS", "CASES", "QUEUES", "SETUPS", "CaseResult", "write_trace", "cached_trace", "run_bench"]

# Sectors exported by the Quantum Atlas 10K (the generator's disk).
ATLAS10K_SECTORS = 17_938_986


@dataclass(frozen=True)
class Load:
    """A benchmark load: mean inter-arrival time and the generator's seed."""

    name: str
    interarrival_ms: float
    seed: int


LOADS: Dict[str, Load] = {
    "moderate": Load("moderate", 12.0, 1),
    "heavy": Load("heavy", 5.5, 2),
}

# (scheduler, load, DiskSim 4.0 requests/s from shared/bench/README.md).
CASES = [("fcfs", "moderate", 67_900), ("sptf", "moderate", 60_300), ("sptf", "heavy", 39_600)]

# Where the queue is ordered. "drive" is DiskSim's setup: the host passes every request on
# (FCFS) to a drive queue of 64 ordered by the drive's own scheduler. "host": an unbounded
# host queue ordered by the host's scheduler, one command at the drive at a time.
QUEUES = ("drive", "host")
SETUPS = {
    "drive": "atlas10k, drive queue of 64 ordered by the drive's own scheduler, host FCFS (DiskSim's setup)",
    "host": "atlas10k, host queue unbounded, drive queue depth 1",
}


def write_trace(out: TextIO, requests: int, interarrival_ms: float, seed: int) -> None:
    """Write ``requests`` random 4 KiB reads in DiskSim ASCII format, exactly as
    ``gen_ascii_trace.py N IA SEED`` does.

    >>> import io
    >>> buf = io.StringIO()
    >>> write_trace(buf, 2, 12.0, 1)
    >>> print(buf.getvalue(), end="")
    1.731493 0 2117512 8 1
    5.265057 0 16624040 8 1
    """
    rng = random.Random(seed)
    blocks = ATLAS10K_SECTORS // 8
    t = 0.0
    lines: List[str] = []
    for _ in range(requests):
        t += rng.expovariate(1.0 / interarrival_ms)
        lines.append(f"{t:.6f} 0 {rng.randrange(blocks) * 8} 8 1\n")
        if len(lines) == 65536:
            out.write("".join(lines))
            lines.clear()
    out.write("".join(lines))


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
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        with open(tmp, "w", encoding="ascii", newline="\n") as f:
            write_trace(f, requests, load.interarrival_ms, load.seed)
        os.replace(tmp, path)
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
    """One benchmark case: wall time of each repeat of the simulation."""

    scheduler: str
    load: str
    requests: int
    wall_s: List[float] = field(default_factory=list)
    disksim_requests_per_s: Optional[int] = None
    queue: str = "drive"
    # With a DiskSim binary (``--vs-disksim``), timed in the same sitting: DiskSim's whole
    # process, and headway's whole `headway replay` process.
    disksim_wall_s: List[float] = field(default_factory=list)
    process_wall_s: List[float] = field(default_factory=list)

    @property
    def median_wall_s(self) -> float:
        return statistics.median(self.wall_s)

    @property
    def requests_per_s(self) -> float:
        """Requests simulated per second of wall time, median over repeats."""
        return self.requests / self.median_wall_s

    @property
    def measured(self) -> bool:
        """Whether DiskSim ran here, in this sitting (else its figure is the README's)."""
        return bool(self.disksim_wall_s)

    @property
    def ratio(self) -> Optional[float]:
        """Core speed over DiskSim's: measured here when DiskSim ran, else against the
        reference figure."""
        if self.measured:
            return statistics.median(self.disksim_wall_s) / self.median_wall_s
        if not self.disksim_requests_per_s:
            return None
        return self.requests_per_s / self.disksim_requests_per_s

    @property
    def end_to_end_ratio(self) -> Optional[float]:
        """DiskSim's process time over headway's whole `headway replay` process."""
        if not (self.measured and self.process_wall_s):
            return None
        return statistics.median(self.disksim_wall_s) / statistics.median(self.process_wall_s)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(
            requests_per_s=self.requests_per_s,
            ratio_to_disksim=self.ratio,
            end_to_end_ratio_to_disksim=self.end_to_end_ratio,
            disksim_measured_here=self.measured,
            setup=SETUPS[self.queue],
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
    binary to time on the same traces in the same sitting, with headway's whole process,
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
                case.disksim_wall_s.append(disksim_bench.run_disksim(disksim, parvs[scheduler], trace, requests))
                case.process_wall_s.append(
                    disksim_bench.time_headway_process(
                        [str(trace), "--format", "disksim-ascii", "--drive", "atlas10k",
                         "--queue-depth", "64", "--firmware-scheduler", scheduler]
                    )
                )
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
