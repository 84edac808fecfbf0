#!/usr/bin/env python3
"""DiskSim 4.0 on one-parameter variants of its valid/ experiments: which of an
experiment's mechanisms moves its mean response, as evidence for docs/disksim-params.md.

Run by hand, never in CI (DiskSim is built outside the repository):

    ../shared/disksim-oracle/build.sh /tmp/disksim
    python3 scripts/disksim_valid_variants.py --disksim /tmp/disksim/disksim-4.0/src/disksim

Each variant is a shipped .parv with one or two `key = value` texts replaced (or, for
syntharrays, its topology redrawn with a bus and controller for each disk); it runs as the
shipped file does (`disksim F.parv F.outv ascii 0 1`) in a copy of DiskSim's valid/ folder.
Printed: a Markdown table of the overall mean and the I/O driver's read and write means (ms),
the run's length (s), the processors that worked more than a second of it (which of them
keep working depends on each run's completions: docs/disksim-params.md) and each logical
organisation's mean (ms) where there are several.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, List, Tuple, Union

from disksim_valid_fixtures import bus_per_disk, indexed, scalar


Edit = Union[Tuple[str, str], Callable[[str], str]]

# (experiment, what the variant changes, [(text in the file, its replacement) or a rewrite]).
VARIANTS: List[Tuple[str, str, List[Edit]]] = [
    ("synthmixed", "as shipped", []),
    ("synthmixed", "driver without priorities or timeouts",
     [("Scheduling timeout scheme = 1", "Scheduling timeout scheme = 0"),
      ("Scheduling priority scheme = 1", "Scheduling priority scheme = 0")]),
    ("synthmixed", "driver without timeouts",
     [("Scheduling timeout scheme = 1", "Scheduling timeout scheme = 0")]),
    ("synthmixed", "driver without priorities",
     [("Scheduling priority scheme = 1", "Scheduling priority scheme = 0")]),
    ("synthmixed", "one processor",
     [("Number of processors =  5", "Number of processors =  1")]),
    ("synthmixed", "one processor, driver without priorities",
     [("Number of processors =  5", "Number of processors =  1"),
      ("Scheduling priority scheme = 1", "Scheduling priority scheme = 0")]),
    ("synthsimpledisk", "as shipped", []),
    ("synthsimpledisk", "driver without timeouts",
     [("Scheduling timeout scheme = 1", "Scheduling timeout scheme = 0")]),
    ("synthsimpledisk", "driver without priorities",
     [("Scheduling priority scheme = 1", "Scheduling priority scheme = 0")]),
    ("synthsimpledisk", "one processor",
     [("Number of processors =  5", "Number of processors =  1")]),
    ("synthsimpledisk", "one processor, driver without priorities",
     [("Number of processors =  5", "Number of processors =  1"),
      ("Scheduling priority scheme = 1", "Scheduling priority scheme = 0")]),
    ("synthcachemem", "as shipped (write-back, flushed on eviction)", []),
    ("synthcachemem", "`Write scheme = 1` (writes wait for the disk)",
     [("Write scheme = 3", "Write scheme = 1")]),
    ("synthcachemem", "`Write scheme = 1`, 10,000 requests",
     [("Write scheme = 3", "Write scheme = 1"), ("generate =  11000", "generate =  10000")]),
    ("synthcachemem", "`Write scheme = 1`, 100 pending at the disk",
     [("Write scheme = 3", "Write scheme = 1"),
      ("Max per-disk pending count = 1", "Max per-disk pending count = 100")]),
    ("synthcachemem", "`Write scheme = 2` (writes acknowledged, written behind)",
     [("Write scheme = 3", "Write scheme = 2")]),
    ("synthcachemem", "`Cache size = 4194304` (the whole disk: no evictions)",
     [("Cache size = 8192", "Cache size = 4194304")]),
    ("synthcachemem", "`Cache size = 1024`", [("Cache size = 8192", "Cache size = 1024")]),
    ("synthcachedev", "as shipped", []),
    ("synthcachedev", "`Write scheme = 1`", [("Write scheme = 3", "Write scheme = 1")]),
    ("syntharrays", "as shipped (four disks to a bus)", []),
    ("syntharrays", "a bus and controller for each disk", [bus_per_disk]),
    ("synthcachedev", "`Write scheme = 2` (write-through)",
     [("Write scheme = 3", "Write scheme = 2")]),
    ("synthcachedev", "`Flush idle delay = 10.0`",
     [("Flush idle delay = 100.0", "Flush idle delay = 10.0")]),
    ("synthcachedev", "`Flush idle delay = 100000000.0` (no destaging)",
     [("Flush idle delay = 100.0", "Flush idle delay = 100000000.0")]),
    ("synthcachedev", "`Maximum queue length = 100` (101 requests at the controller)",
     [("Maximum queue length = 0", "Maximum queue length = 100")]),
]

# The same experiments from other random streams: which processors keep working, and with
# them the mean, changes from seed to seed.
VARIANTS += [
    (name, f"`Init Seed = {seed}`",
     [("Init Seed = 42", f"Init Seed = {seed}"), ("Real Seed = 42", f"Real Seed = {seed}")])
    for name in ("synthmixed", "synthsimpledisk") for seed in range(1, 6)
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--disksim", type=Path, required=True, help="the disksim binary")
    args = ap.parse_args()
    disksim = args.disksim.resolve()
    valid = disksim.parent.parent / "valid"
    print("| file | variant | overall | non-critical reads | non-critical writes | run, s | "
          "processors working | volumes |")
    print("|---|---|---:|---:|---:|---:|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "valid"
        shutil.copytree(valid, work)
        for i, (name, what, edits) in enumerate(VARIANTS):
            text = (work / f"{name}.parv").read_text()
            for e in edits:
                if callable(e):
                    text = e(text)
                    continue
                old, new = e
                if old not in text:
                    print(f"{name}: `{old}` not in the file", file=sys.stderr)
                    return 1
                text = text.replace(old, new)
            parv = f"variant{i}.parv"
            (work / parv).write_text(text)
            run = subprocess.run(
                [str(disksim), parv, f"variant{i}.outv", "ascii", "0", "1"],
                cwd=work, capture_output=True, text=True,
            )
            if run.returncode != 0:
                print(f"{name} ({what}): DiskSim failed: {run.stderr.strip()[-300:]}",
                      file=sys.stderr)
                return 1
            out = (work / f"variant{i}.outv").read_text()
            # syntharrays prints its read and write means for the whole system only (its driver
            # sees the member operations).
            who = "IOdriver" if "IOdriver Non-Critical Read" in out else "Overall I/O System"
            means = [
                scalar(out, f"{who} Response time average"),
                scalar(out, f"{who} Non-Critical Read Response time average"),
                scalar(out, f"{who} Non-Critical Write Response time average"),
            ]
            run_ms = scalar(out, "Total time of run")
            idle_ms = indexed(out, "CPU", "Total idle milliseconds")
            busy = ", ".join(f"#{n}" for n, ms in sorted(idle_ms.items()) if run_ms - ms > 1000.0)
            orgs = indexed(out, "System logorg", "Response time average")
            volumes = ", ".join(f"{ms:.3f}" for _, ms in sorted(orgs.items()))
            volumes = volumes if len(orgs) > 1 else ""
            print(f"| {name} | {what} | " + " | ".join(f"{m:.3f}" for m in means)
                  + f" | {run_ms / 1000.0:.1f} | {busy} | {volumes} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
