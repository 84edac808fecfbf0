#!/usr/bin/env python3
"""Regenerate the DiskSim 4.0 differential fixtures (crates/headway/tests/fixtures/disksim/).

For every catalog drive that has DiskSim parameter files, runs a set of synthetic workloads
through DiskSim 4.0 (built outside the repository by ../shared/disksim-oracle/build.sh) and
writes what DiskSim printed: response-time means, standard deviations and distributions in
fine bins (DiskSim does not print per-request completion times; its statistics module does
print distributions, so the script hands it a stat definition with ~1% wide bins).

    ../shared/disksim-oracle/build.sh /tmp/disksim
    python3 scripts/disksim_fixtures.py --disksim /tmp/disksim/disksim-4.0/src/disksim

The workloads are regenerated from their description (seed, size mix, arrival rate) by
`workload_lines`, which crates/headway/tests/integration/disksim_oracle.rs repeats draw for draw, so the
traces themselves are not committed. Nothing of DiskSim is committed either: only the numbers
it printed, with its copyright notice (COPYRIGHT beside the fixtures).

`--variant decision-angle` writes the SPTF workloads only, to
crates/headway/tests/fixtures/disksim_decision_angle/, from a DiskSim changed in one place to
test a mechanism (docs/fidelity.md, "DiskSim's SPTF ranking as an option"): in
`disk_buffer_estimate_servtime` (src/disksim_diskctlr.c), the mechanical state handed to `dm_acctime` is a copy of
`currdisk->mech_state` whose angle is advanced by the rotation over `simtime -
currdisk->currtime`, so SPTF ranks requests from where the head is when it decides rather
than where it was at the disk's last media event. Build that DiskSim yourself and pass it
with --disksim; the change is not shipped.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, Iterator, List, Optional

# Catalog name -> DiskSim run configuration in DiskSim's valid/ folder.
DRIVES: Dict[str, str] = {
    "atlas10k": "atlas10k.parv",
    "atlas_iii": "atlas_III.parv",
    "barracuda": "barracuda.parv",
    "cheetah4lp": "cheetah4LP.parv",
    "cheetah9lp": "cheetah9LP.parv",
    "dec_rz26": "dec_rz26.parv",
    "hp_c2247a": "hp_c2247a.parv",
    "hp_c2490a": "hp_c2490a.parv",
    "hp_c3323a": "hp_c3323a.parv",
    "ibm18es": "ibm18es.parv",
    "st41601n": "st41601n.parv",
}

# DiskSim's firmware policies that headway implements (firmware_queue::policy_name).
POLICIES = {"fcfs": 1, "look": 5, "clook": 6, "sstf": 7, "sptf": 8}

# Response-time bins DiskSim is told to use: values in microseconds, 20 us wide up to 2 ms,
# then growing by 1% a bin (DiskSim's "Start/step/grow" large distribution).
SCALE = 1000
START_US, STEP_US, GROW_PCT, BUCKETS = 0, 20, 1, 1200

SIZES_MIXED = [1, 2, 4, 8, 8, 8, 16, 32, 64, 128, 256, 512]

FORMAT_VERSION = 2


def bin_edges_us() -> List[int]:
    """The bucket starts DiskSim computes from START/STEP/GROW (integer arithmetic, as it does)."""
    edges, b = [], START_US
    for _ in range(BUCKETS):
        edges.append(b)
        b += STEP_US + int(abs(b) * GROW_PCT / 100.0)
    return edges


def workloads(service_ms: float, span: int) -> List[dict]:
    """The workloads run on one drive. `service_ms` is the drive's mean random 4 KiB read
    service time (DiskSim's, from a light-load run), which sets the arrival rates; requests
    stay below sector `span`."""
    s = service_ms
    w = []

    def add(name, *, n, ia_ms, sizes, read_fraction, seq, queue, policy="fcfs", seed):
        w.append(
            dict(
                name=name,
                requests=n,
                interarrival_ms=round(ia_ms, 4),
                sizes=sizes,
                read_fraction=read_fraction,
                sequential_fraction=seq,
                queue_depth=queue,
                policy=policy,
                seed=seed,
                span_sectors=span,
            )
        )

    # One command at the drive: misses, read-ahead hits, fast writes and their write-back.
    add("q1_rand_read_4k", n=2000, ia_ms=3 * s, sizes=[8], read_fraction=1.0, seq=0.0, queue=1, seed=11)
    add("q1_rand_write_4k", n=2000, ia_ms=3 * s, sizes=[8], read_fraction=0.0, seq=0.0, queue=1, seed=12)
    add("q1_seq_read_4k", n=2000, ia_ms=s / 2, sizes=[8], read_fraction=1.0, seq=1.0, queue=1, seed=13)
    add("q1_seq_write_4k", n=2000, ia_ms=1.5 * s, sizes=[8], read_fraction=0.0, seq=1.0, queue=1, seed=14)
    add("q1_mixed", n=2000, ia_ms=3 * s, sizes=SIZES_MIXED, read_fraction=0.66, seq=0.3, queue=1, seed=15)
    add("q1_seq_read_1s", n=2000, ia_ms=s / 4, sizes=[1], read_fraction=1.0, seq=1.0, queue=1, seed=16)
    add("q1_seq_read_256k", n=500, ia_ms=12 * s, sizes=[512], read_fraction=1.0, seq=1.0, queue=1, seed=17)
    # A short queue at the drive.
    for pol in ("fcfs", "sptf"):
        add(f"q4_mixed_{pol}", n=2000, ia_ms=1.2 * s, sizes=SIZES_MIXED[:9], read_fraction=0.66, seq=0.2, queue=4, policy=pol, seed=21)
    # A deep queue under load, every policy.
    for pol in POLICIES:
        ia = {"fcfs": 1.15 * s, "sptf": 0.6 * s}.get(pol, 0.8 * s)
        add(f"q64_rand_read_4k_{pol}", n=3000, ia_ms=ia, sizes=[8], read_fraction=1.0, seq=0.0, queue=64, policy=pol, seed=31)
    add("q64_rand_rw_4k_sptf", n=3000, ia_ms=0.6 * s, sizes=[8], read_fraction=0.66, seq=0.0, queue=64, policy="sptf", seed=32)
    return w


class SplitMix64:
    """splitmix64: a generator simple enough that the Rust test repeats it bit for bit."""

    MASK = (1 << 64) - 1

    def __init__(self, seed: int) -> None:
        self.x = seed & self.MASK

    def next(self) -> int:
        self.x = (self.x + 0x9E3779B97F4A7C15) & self.MASK
        z = self.x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def unit(self) -> float:
        return (self.next() >> 11) * 2.0**-53

    def below(self, n: int) -> int:
        return self.next() % n


def workload_lines(w: dict, from_zero: bool = True) -> Iterator[str]:
    """The DiskSim ASCII trace of workload `w` (`time_ms devno blkno bcount flags`, flags 1 =
    read): exponential arrivals; each request continues the previous one with probability
    `sequential_fraction`, else starts at a uniform 8-sector-aligned place below `span_sectors`.
    Every draw is made for every request, in this order, so the stream never shifts.

    With `from_zero` the times count from the first arrival, which is at 0: DiskSim keeps a
    trace's absolute times (its spindle is at angle 0 at time 0) while headway replays from
    the first record, so a trace starting later puts the two spindles at different phases
    for the whole run (the "buffer hits" gap of docs/fidelity.md). The probe that sets the arrival
    rates keeps the absolute times, so the rates stay those of format 1."""
    rng = SplitMix64(w["seed"])
    t = 0.0
    t0 = None
    nxt = 0
    span = w["span_sectors"] - max(w["sizes"])
    for i in range(w["requests"]):
        t += -w["interarrival_ms"] * math.log(1.0 - rng.unit())
        size = w["sizes"][rng.below(len(w["sizes"]))]
        read = rng.unit() < w["read_fraction"]
        seq = rng.unit() < w["sequential_fraction"]
        lbn = rng.below(span // 8) * 8
        if i > 0 and seq and nxt + size <= w["span_sectors"]:
            lbn = nxt
        nxt = lbn + size
        if t0 is None:
            t0 = t if from_zero else 0.0
        yield f"{t - t0:.6f} 0 {lbn} {size} {1 if read else 0}\n"


def statdefs(text: str) -> str:
    """DiskSim's statdefs with the response-time distribution replaced by the fine bins."""
    fine = f"Response time\nDistribution size: {BUCKETS}\nScale/Equals: {SCALE}/0\nStart {START_US} step {STEP_US} grow {GROW_PCT}\n"
    out, skip = [], 0
    for line in text.splitlines(keepends=True):
        if skip:
            skip -= 1
            continue
        if line == "Response time\n":
            out.append(fine)
            skip = 3
            continue
        out.append(line)
    return "".join(out)


def configure(valid: Path, work: Path, parv: str, w: dict) -> Path:
    """A run configuration for `w`: the drive's own, with the drive queue and policy set."""
    text = (valid / parv).read_text()
    m = re.search(r"^source (\S+\.diskspecs)", text, re.M)
    if not m:
        raise SystemExit(f"{parv}: no `source X.diskspecs` line")
    specs = (valid / m.group(1)).read_text()
    specs, n1 = re.subn(r"Max queue length = \d+", f"Max queue length = {w['queue_depth']}", specs, count=1)
    specs, n2 = re.subn(r"Scheduling policy = \d+", f"Scheduling policy = {POLICIES[w['policy']]}", specs, count=1)
    # The catalog's files set "Cylinder mapping strategy = 0" (MAP_NONE), under which DiskSim's
    # cylinder policies see every request on cylinder 0; give them the real mapping (4,
    # MAP_FULL), which is what headway's LOOK, C-LOOK and SSTF order by.
    specs, n3 = re.subn(r"Cylinder mapping strategy = \d+", "Cylinder mapping strategy = 4", specs, count=1)
    if n1 != 1 or n2 != 1 or n3 != 1:
        raise SystemExit(f"{m.group(1)}: queue length, scheduling policy or cylinder mapping not found")
    (work / "wl.diskspecs").write_text(specs)
    text = text.replace(m.group(0), "source wl.diskspecs")
    text = re.sub(r"Stat definition file = statdefs", "Stat definition file = statdefs_fine", text)
    out = work / "wl.parv"
    out.write_text(text)
    return out


STAT = re.compile(r"^IOdriver (Response time|Non-Critical Read Response time|Non-Critical Write Response time) (average|std\.dev\.|maximum):\s*(\S+)")


def parse_outv(text: str) -> dict:
    """Means, standard deviations and the response-time distribution from DiskSim's output."""
    out: dict = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = STAT.match(line)
        if m:
            key = {"Response time": "all", "Non-Critical Read Response time": "read", "Non-Critical Write Response time": "write"}[m.group(1)]
            out.setdefault(key, {})[{"average": "mean_ms", "std.dev.": "sd_ms", "maximum": "max_ms"}[m.group(2)]] = float(m.group(3))
        elif line.startswith("IOdriver Total Requests handled:"):
            out["completed"] = int(line.split(":")[1])
        elif line == "IOdriver Response time distribution":
            counts = []
            for row in lines[i + 1 : i + 1 + BUCKETS]:
                label, count = row.split()[:2]
                counts.append((round(float(label) * SCALE), int(count)))
            out["all"]["bins"] = [[lab, c] for lab, c in counts if c]
    return out


def run_one(disksim: Path, valid: Path, parv: str, w: dict, from_zero: bool = True) -> dict:
    with tempfile.TemporaryDirectory(prefix="disksim_fx_") as d:
        work = Path(d)
        for f in valid.iterdir():
            (work / f.name).symlink_to(f)
        (work / "statdefs_fine").write_text(statdefs((valid / "statdefs").read_text()))
        cfg = configure(valid, work, parv, w)
        trace = work / "wl.trace"
        with trace.open("w") as f:
            f.writelines(workload_lines(w, from_zero))
        p = subprocess.run([str(disksim), cfg.name, "wl.outv", "ascii", "wl.trace", "0"], cwd=work, capture_output=True, text=True)
        if p.returncode != 0:
            return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]}
        r = parse_outv((work / "wl.outv").read_text())
        # DiskSim stops at the end of the trace with the last requests in flight; far fewer
        # completions than requests means its run went wrong (it stalls on some drives).
        if r.get("completed", 0) < 0.98 * w["requests"]:
            return {"error": f"DiskSim completed {r.get('completed', 0)} of {w['requests']} requests"}
        return r


def span_of(valid: Path, parv: str) -> int:
    """Where requests stay below: 95% of the Block count the drive's model file declares
    (DiskSim exports what the zones map, which may differ a little; the test checks the span
    fits the drive headway builds)."""
    text = (valid / parv).read_text()
    specs = (valid / re.search(r"^source (\S+\.diskspecs)", text, re.M).group(1)).read_text()
    model = (valid / re.search(r"Model = source (\S+),", specs).group(1)).read_text()
    declared = int(re.search(r"Block count = +(\d+)", model).group(1))
    return declared * 95 // 100 // 8 * 8


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--disksim", required=True, type=Path, help="the disksim binary built by build.sh")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "crates/headway/tests/fixtures/disksim")
    ap.add_argument("--drive", action="append", help="only these catalog drives")
    ap.add_argument("--variant", choices=["decision-angle"], help="a DiskSim changed as the module's docstring says: SPTF workloads only")
    args = ap.parse_args(argv)
    if args.variant and args.out == ap.get_default("out"):
        args.out = args.out.parent / "disksim_decision_angle"
    valid = args.disksim.resolve().parent.parent / "valid"
    copyright_file = args.disksim.resolve().parent / "COPYRIGHT"
    args.out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(copyright_file, args.out / "COPYRIGHT")
    for drive, parv in DRIVES.items():
        if args.drive and drive not in args.drive:
            continue
        span = span_of(valid, parv)
        probe = dict(name="probe", requests=400, interarrival_ms=200.0, sizes=[8], read_fraction=1.0, sequential_fraction=0.0, queue_depth=1, policy="fcfs", seed=1, span_sectors=span)
        r = run_one(args.disksim, valid, parv, probe, from_zero=False)
        if "error" in r:
            print(f"{drive}: DiskSim fails: {r['error']}", file=sys.stderr)
            results = {"drive": drive, "error": r["error"], "workloads": []}
        else:
            service = r["all"]["mean_ms"]
            results = {"drive": drive, "random_read_service_ms": service, "workloads": []}
            for w in workloads(service, span):
                if args.variant and w["policy"] != "sptf":
                    continue
                r = run_one(args.disksim, valid, parv, w)
                results["workloads"].append({"workload": w, "disksim": r})
                print(f"{drive:10} {w['name']:24} " + (r["error"] if "error" in r else f"{r['all']['mean_ms']:9.3f} ms"), file=sys.stderr)
        results.update(
            format=FORMAT_VERSION,
            bins={"scale": SCALE, "start_us": START_US, "step_us": STEP_US, "grow_pct": GROW_PCT, "buckets": BUCKETS},
            generator="scripts/disksim_fixtures.py (DiskSim 4.0, ../shared/disksim-oracle)"
            + (f", variant {args.variant}" if args.variant else ""),
        )
        (args.out / f"{drive}.json").write_text(json.dumps(results, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
