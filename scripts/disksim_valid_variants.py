#!/usr/bin/env python3
"""DiskSim 4.0 on one-parameter variants of its valid/ experiments: which of an
experiment's mechanisms moves its mean response, as evidence for docs/disksim-params.md.

Run by hand, never in CI (DiskSim is built outside the repository):

    ../shared/disksim-oracle/build.sh /tmp/disksim
    python3 scripts/disksim_valid_variants.py --disksim /tmp/disksim/disksim-4.0/src/disksim

Each variant is a shipped .parv with one or two `key = value` texts replaced; it runs as the
shipped file does (`disksim F.parv F.outv ascii 0 1`) in a copy of DiskSim's valid/ folder.
Printed: a Markdown table of the overall mean and the I/O driver's read and write means (ms),
the run's length (s) and the processors that worked more than a second of it (which of them
keep working depends on each run's completions: docs/disksim-params.md).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Tuple

from disksim_valid_fixtures import indexed, scalar

# (experiment, what the variant changes, [(text in the file, its replacement)]).
VARIANTS: List[Tuple[str, str, List[Tuple[str, str]]]] = [
    ("synthmixed", "as shipped", []),
    ("synthmixed", "driver without priorities or timeouts",
     [("Scheduling timeout scheme = 1", "Scheduling timeout scheme = 0"),
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
    ("synthcachedev", "`Write scheme = 2` (write-through)",
     [("Write scheme = 3", "Write scheme = 2")]),
    ("synthcachedev", "`Flush idle delay = 10.0`",
     [("Flush idle delay = 100.0", "Flush idle delay = 10.0")]),
    ("synthcachedev", "`Flush idle delay = 100000000.0` (no destaging)",
     [("Flush idle delay = 100.0", "Flush idle delay = 100000000.0")]),
    ("synthcachedev", "`Maximum queue length = 100` (101 requests at the controller)",
     [("Maximum queue length = 0", "Maximum queue length = 100")]),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--disksim", type=Path, required=True, help="the disksim binary")
    args = ap.parse_args()
    disksim = args.disksim.resolve()
    valid = disksim.parent.parent / "valid"
    print("| file | variant | overall | non-critical reads | non-critical writes | run, s | "
          "processors working |")
    print("|---|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "valid"
        shutil.copytree(valid, work)
        for i, (name, what, edits) in enumerate(VARIANTS):
            text = (work / f"{name}.parv").read_text()
            for old, new in edits:
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
            means = [
                scalar(out, "IOdriver Response time average"),
                scalar(out, "IOdriver Non-Critical Read Response time average"),
                scalar(out, "IOdriver Non-Critical Write Response time average"),
            ]
            run_ms = scalar(out, "Total time of run")
            idle_ms = indexed(out, "CPU", "Total idle milliseconds")
            busy = ", ".join(f"#{n}" for n, ms in sorted(idle_ms.items()) if run_ms - ms > 1000.0)
            print(f"| {name} | {what} | " + " | ".join(f"{m:.3f}" for m in means)
                  + f" | {run_ms / 1000.0:.1f} | {busy} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
