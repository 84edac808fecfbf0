#!/usr/bin/env python3
"""Regenerate crates/headway/tests/fixtures/disksim_valid/: what DiskSim 4.0 prints for the
experiments in its own valid/ folder.

Run by hand, never in CI (DiskSim is built outside the repository):

    ../shared/disksim-oracle/build.sh /tmp/disksim
    python3 scripts/disksim_valid_fixtures.py --disksim /tmp/disksim/disksim-4.0/src/disksim

Each .parv runs exactly as DiskSim's own `valid/runvalid` runs it (the synthetic runs as
`disksim F.parv F.outv ascii 0 1`, `ascii.parv` on `ascii.trace`), in a copy of DiskSim's
valid/ folder so that the files it sources are found. One JSON file per experiment holds the
figures headway is compared with: the overall and I/O-driver response-time means (ms), the
requests handled, and per I/O-driver device and per logical organisation the requests and
mean response. Nothing of DiskSim is committed: only the numbers it printed, with its
copyright notice (COPYRIGHT beside the fixtures). `syntharrays_bus_per_disk` is syntharrays
with a bus and controller for each disk (its disks share a bus four to a bus as shipped).

With `--seeds N` it writes instead, for the multi-processor closed experiments
(`synthmixed`, `synthsimpledisk`), DiskSim's runs over N draws of its random stream
(`seeds/NAME.json`: per seed the mean response, run length and processors that worked;
scripts/disksim_seed_ensemble.py says how the draws are made).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "crates" / "headway" / "tests" / "fixtures" / "disksim_valid"

# Experiment -> the arguments after `F.parv F.outv` that DiskSim's runvalid gives it.
RUNS: Dict[str, List[str]] = {
    "synthopen": ["ascii", "0", "1"],
    "synthclosed": ["ascii", "0", "1"],
    "synthmixed": ["ascii", "0", "1"],
    "synthraid5": ["ascii", "0", "1"],
    "syntharrays": ["ascii", "0", "1"],
    "synthcachemem": ["ascii", "0", "1"],
    "synthcachedev": ["ascii", "0", "1"],
    "synthsimpledisk": ["ascii", "0", "1"],
    "3disks": ["ascii", "0", "1"],
    "3disks2": ["ascii", "0", "1"],
    "ascii": ["ascii", "ascii.trace", "0"],
}

NUMBER = r"([-0-9.eE+]+)"


def scalar(text: str, label: str) -> float:
    m = re.search(r"^" + re.escape(label) + r":\s*" + NUMBER + r"\s*$", text, re.M)
    if m is None:
        raise SystemExit(f"disksim_valid_fixtures: `{label}` not in DiskSim's output")
    return float(m.group(1))


def indexed(text: str, prefix: str, what: str) -> Dict[int, float]:
    """`PREFIX #N WHAT: value` rows, by N."""
    pat = r"^" + re.escape(prefix) + r" #(\d+) " + re.escape(what) + r":\s*" + NUMBER + r"\s*$"
    return {int(n): float(v) for n, v in re.findall(pat, text, re.M)}


def figures(outv: str) -> dict:
    dev_mean = indexed(outv, "IOdriver #0 device", "Response time average")
    dev_reqs = indexed(outv, "IOdriver #0 device", "Total Requests handled")
    org_mean = indexed(outv, "System logorg", "Response time average")
    org_reqs = indexed(outv, "System logorg", "Number of requests")
    return {
        "overall_mean_ms": scalar(outv, "Overall I/O System Response time average"),
        "overall_requests": int(scalar(outv, "Overall I/O System Total Requests handled")),
        "iodriver_mean_ms": scalar(outv, "IOdriver Response time average"),
        "iodriver_requests": int(scalar(outv, "IOdriver Total Requests handled")),
        "devices": [
            {"device": n, "requests": int(dev_reqs.get(n, 0)), "mean_ms": dev_mean[n]}
            for n in sorted(dev_mean)
        ],
        "logorgs": [
            {"logorg": n, "requests": int(org_reqs.get(n, 0)), "mean_ms": org_mean[n]}
            for n in sorted(org_mean)
        ],
    }


def bus_per_disk(text: str) -> str:
    """The file's disks each on a bus and controller of their own: the driver's bus0 of the
    first bus type, then for disk N a controller ctlrN and a bus N+1 of the last bus type
    (the one the disks hang off in syntharrays)."""
    disks = re.search(r"instantiate \[ disk0 \.\. disk(\d+) \]\s+as\s+(\S+)", text)
    buses = re.findall(r"instantiate \[ bus\d+ \.\. bus\d+ \]\s+as\s+(\S+)", text)
    ctlr = re.search(r"instantiate \[ ctlr0 \.\. ctlr\d+ \]\s+as\s+(\S+)", text)
    driver = re.search(r"instantiate \[ driver0 \]\s+as\s+(\S+)", text)
    start = text.index("instantiate [ disk0")
    end = text.index("# no syncsets")
    if not (disks and buses and ctlr and driver):
        raise SystemExit("bus_per_disk: the instantiations are not syntharrays'")
    n = int(disks.group(1)) + 1
    arms = ",\n".join(
        f"  disksim_ctlr ctlr{i} [ disksim_bus bus{i + 1} [ disksim_disk disk{i} [] ] ]"
        for i in range(n)
    )
    topology = (
        f"instantiate [ disk0 .. disk{n - 1} ] as {disks.group(2)}\n"
        f"instantiate [ bus0 ] as {buses[0]}\n"
        f"instantiate [ bus1 .. bus{n} ] as {buses[-1]}\n"
        f"instantiate [ driver0 ] as {driver.group(1)}\n"
        f"instantiate [ ctlr0 .. ctlr{n - 1} ] as {ctlr.group(1)}\n\n"
        f"topology disksim_iodriver driver0 [\n disksim_bus bus0 [\n{arms}\n ]\n]\n\n"
    )
    return text[:start] + topology + text[end:]


# Experiment -> (the shipped file it is derived from, its rewrite); it runs as that one does.
DERIVED = {
    # syntharrays' disks share a bus four to a bus; here each has its own.
    "syntharrays_bus_per_disk": ("syntharrays", bus_per_disk),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--disksim", type=Path, required=True, help="the disksim binary")
    ap.add_argument("--seeds", type=int, default=0,
                    help="write the seed ensembles over this many draws instead")
    args = ap.parse_args()
    disksim = args.disksim.resolve()
    valid = disksim.parent.parent / "valid"
    if args.seeds > 0:
        from disksim_seed_ensemble import write_ensembles

        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(valid, Path(tmp) / "valid")
            return write_ensembles(disksim, Path(tmp), args.seeds, OUT / "seeds", figures,
                                   scalar, indexed)
    OUT.mkdir(parents=True, exist_ok=True)
    shutil.copy(disksim.parent / "COPYRIGHT", OUT / "COPYRIGHT")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "valid"
        shutil.copytree(valid, work)
        runs = dict(RUNS)
        for name, (base, rewrite) in DERIVED.items():
            (work / f"{name}.parv").write_text(rewrite((work / f"{base}.parv").read_text()))
            runs[name] = RUNS[base]
        for name, rest in runs.items():
            start = time.perf_counter()
            run = subprocess.run(
                [str(disksim), f"{name}.parv", f"{name}.outv", *rest],
                cwd=work, capture_output=True, text=True,
            )
            wall_s = time.perf_counter() - start
            if run.returncode != 0:
                print(f"{name}: DiskSim failed: {run.stderr.strip()[-300:]}", file=sys.stderr)
                return 1
            fig = figures((work / f"{name}.outv").read_text())
            fixture = {
                "experiment": f"{name}.parv",
                "command": ["disksim", f"{name}.parv", f"{name}.outv", *rest],
                "source": "DiskSim 4.0 (CMU PDL), built by ../shared/disksim-oracle/build.sh",
                **fig,
            }
            (OUT / f"{name}.json").write_text(json.dumps(fixture, indent=1) + "\n")
            print(f"{name}: {fig['overall_mean_ms']:.3f} ms over {fig['overall_requests']} "
                  f"requests ({wall_s:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
