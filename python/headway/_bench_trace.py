"""The reference benchmark's workload: random 4 KiB reads, uniform over the Quantum Atlas
10K's 17,938,986 sectors, 8-sector aligned, exponential inter-arrival times, in DiskSim's
ASCII trace format, at two loads with fixed seeds.

The same algorithm and random stream as the project's DiskSim input generator
(``gen_ascii_trace.py``, Python's ``random.Random(seed)``), so the files are byte-identical
to the ones DiskSim 4.0 ran for its published figures. Standard library only, and nothing of
headway imported: ``scripts/instructions_per_request.py`` loads this file by its path to
write its traces without the compiled extension being built.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Dict, List, TextIO

__all__ = ["ATLAS10K_SECTORS", "Load", "LOADS", "write_trace"]

# Sectors exported by the Quantum Atlas 10K (the generator's disk).
ATLAS10K_SECTORS = 17_938_986


@dataclass(frozen=True)
class Load:
    """A benchmark load: mean inter-arrival time and the generator's seed.

    >>> LOADS["heavy"]
    Load(name='heavy', interarrival_ms=5.5, seed=2)
    """

    name: str
    interarrival_ms: float
    seed: int


LOADS: Dict[str, Load] = {
    "moderate": Load("moderate", 12.0, 1),
    "heavy": Load("heavy", 5.5, 2),
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
