#!/usr/bin/env python3
"""Write the trace of docs/fidelity.md's "an access starting under the head, late in a run":
pairs of 8-sector reads on the Atlas 10K, the second of each pair 1 us after the first and of
the 8 blocks after it (it waits in the drive's queue and is served from the read-ahead), pairs
100 ms apart from START_MS, after a first read at 0 ms. DiskSim's ASCII format.

    python3 scripts/late_readahead_pairs.py 1e7 > late.trace
    headway replay late.trace --format disksim-ascii --drive atlas10k --queue-depth 64 \\
        --firmware-scheduler fcfs
    disksim trace_fcfs_q64.parv late.outv ascii late.trace 0   # in DiskSim's valid/ folder

Only the starting time differs between the runs compared; the blocks come from a fixed seed.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Iterator

ATLAS10K_SECTORS = 17_938_986
PAIRS = 400
SEED = 7


def lines(start_ms: float, pairs: int = PAIRS, seed: int = SEED) -> Iterator[str]:
    """The trace's lines: a read at 0, then `pairs` pairs from `start_ms`."""
    rng = random.Random(seed)
    yield "0.000000 0 100 8 1\n"
    for i in range(pairs):
        lbn = rng.randrange(0, ATLAS10K_SECTORS - 16)
        at = start_ms + i * 100.0
        yield f"{at:.6f} 0 {lbn} 8 1\n"
        yield f"{at + 0.001:.6f} 0 {lbn + 8} 8 1\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("start_ms", type=float, help="when the first pair arrives, in ms (>= 1)")
    parser.add_argument("--pairs", type=int, default=PAIRS, help=f"pairs (default {PAIRS})")
    args = parser.parse_args(argv)
    if not args.start_ms >= 1.0:
        parser.error(f"start_ms must be at least 1 (after the first read), got {args.start_ms}")
    if args.pairs < 1:
        parser.error(f"--pairs must be at least 1, got {args.pairs}")
    sys.stdout.writelines(lines(args.start_ms, args.pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
