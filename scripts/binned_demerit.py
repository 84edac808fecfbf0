"""The demerit "on equal terms" with DiskSim: both distributions binned as DiskSim prints them.

DiskSim's output (`.outv`) gives the measured ("VALIDATE Trace access time distribution")
and simulated ("IOdriver Physical access time distribution") access times only as histogram
bins. This scores DiskSim's two binned distributions, and headway's per-request simulated
times put into the same bins (each time counted under the first bin label at or above it),
with the same demerit formula as headway.validate.

    headway validate cheetah4lp --requests-out pairs.csv
    python scripts/binned_demerit.py cheetah4LP.outv pairs.csv

where ``cheetah4LP.outv`` is DiskSim 4.0's output for its validation run of that drive (made
by running DiskSim 4.0's validation suite; not shipped with headway).
"""

from __future__ import annotations

import bisect
import csv
import math
import sys


def distribution(path: str, header: str) -> list[tuple[float, int]]:
    lines = open(path).read().splitlines()
    try:
        i = lines.index(header) + 1
    except ValueError:
        sys.exit(f"{path}: no line `{header}`")
    rows = []
    for line in lines[i:]:
        parts = line.split()
        if len(parts) != 4:
            break
        rows.append((float(parts[0]), int(parts[1])))
    return rows


def demerit(a: list[float], b: list[float]) -> float:
    a, b = sorted(a), sorted(b)

    def q(s: list[float], p: float) -> float:
        return s[min(max(math.ceil(p * len(s)), 1), len(s)) - 1]

    return math.sqrt(sum((q(a, i / 10000) - q(b, i / 10000)) ** 2 for i in range(1, 10001)) / 10000)


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit("usage: binned_demerit.py DRIVE.outv PAIRS.csv")
    outv, pairs = sys.argv[1:]
    measured = distribution(outv, "VALIDATE Trace access time distribution")
    simulated = distribution(outv, "IOdriver Physical access time distribution")
    labels = [v for v, _ in measured]
    expand = lambda rows: [v for v, c in rows for _ in range(c)]  # noqa: E731
    with open(pairs) as f:
        ours = [float(r["simulated_ms"]) for r in csv.DictReader(f)]
    binned = [labels[min(bisect.bisect_left(labels, x), len(labels) - 1)] for x in ours]
    print(f"DiskSim binned demerit  {demerit(expand(measured), expand(simulated)):.4f} ms")
    print(f"headway binned demerit  {demerit(expand(measured), binned):.4f} ms")


if __name__ == "__main__":
    main()
