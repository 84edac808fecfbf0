"""The seed-ensemble mode of scripts/disksim_valid_fixtures.py (`--seeds N`): DiskSim 4.0's
multi-processor synthetic experiments over N draws of its random stream, one fixture per
file in crates/headway/tests/fixtures/disksim_valid/seeds/.

DiskSim reseeds its generator with a constant as the simulation starts, so `Init Seed` and
`Real Seed` move only the first request of each generator. To draw a run's whole stream
again, a copy of the DiskSim tree is built with that constant read from the environment
(`DISKSIM_RUN_SEED`, the shipped constant when unset): a one-line substitution made here in
a temporary copy, never committed. Each seed's run records the overall mean response (ms),
the requests handled, the run's length (s) and the processors that worked more than a
second of it (CPU number, busy ms).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

# Files whose mean depends on which processors keep working: five processors, closed
# generators.
SEEDED = ["synthmixed", "synthsimpledisk"]

# The line of DiskSim's src/disksim.c that reseeds as the run starts, and its replacement.
RESEED = "DISKSIM_srand48(1000003);"
RESEED_FROM_ENV = (
    'DISKSIM_srand48(getenv("DISKSIM_RUN_SEED") ? atol(getenv("DISKSIM_RUN_SEED")) : 1000003);'
)


def seeded_build(disksim: Path, work: Path) -> Path:
    """A copy of the DiskSim tree `disksim` was built in, rebuilt with its run seed read from
    the environment; returns its binary."""
    tree = disksim.parent.parent
    copy = work / "disksim-seeded"
    shutil.copytree(tree, copy, symlinks=True)
    src = copy / "src" / "disksim.c"
    text = src.read_text()
    if text.count(RESEED) != 1:
        raise SystemExit(f"disksim_seed_ensemble: `{RESEED}` not once in {src}")
    src.write_text(text.replace(RESEED, RESEED_FROM_ENV))
    run = subprocess.run(["make"], cwd=copy / "src", capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"disksim_seed_ensemble: rebuilding failed: {run.stderr[-300:]}")
    return copy / "src" / "disksim"


def one_run(binary: Path, valid: Path, name: str, seed: int, figures, scalar, indexed) -> dict:
    out = f"{name}-seed{seed}.outv"
    env = dict(os.environ, DISKSIM_RUN_SEED=str(seed))
    run = subprocess.run(
        [str(binary), f"{name}.parv", out, "ascii", "0", "1"],
        cwd=valid, capture_output=True, text=True, env=env,
    )
    if run.returncode != 0:
        raise SystemExit(f"{name} seed {seed}: DiskSim failed: {run.stderr.strip()[-300:]}")
    text = (valid / out).read_text()
    fig = figures(text)
    run_ms = scalar(text, "Total time of run")
    idle_ms = indexed(text, "CPU", "Total idle milliseconds")
    busy = [
        {"cpu": n, "busy_ms": round(run_ms - ms, 3)}
        for n, ms in sorted(idle_ms.items())
        if run_ms - ms > 1000.0
    ]
    return {
        "seed": seed,
        "mean_ms": fig["overall_mean_ms"],
        "requests": fig["overall_requests"],
        "run_s": round(run_ms / 1000.0, 3),
        "processors_working": busy,
    }


def write_ensembles(disksim: Path, work: Path, n: int, out: Path, figures, scalar,
                    indexed) -> int:
    binary = seeded_build(disksim, work)
    valid = work / "valid"
    out.mkdir(parents=True, exist_ok=True)
    for name in SEEDED:
        runs: List[Dict] = [
            one_run(binary, valid, name, seed, figures, scalar, indexed)
            for seed in range(1, n + 1)
        ]
        means = [r["mean_ms"] for r in runs]
        fixture = {
            "experiment": f"{name}.parv",
            "command": ["DISKSIM_RUN_SEED=SEED", "disksim", f"{name}.parv", f"{name}.outv",
                        "ascii", "0", "1"],
            "source": "DiskSim 4.0 (CMU PDL), built by ../shared/disksim-oracle/build.sh, "
                      "its run seed read from DISKSIM_RUN_SEED",
            "seeds": n,
            "mean_ms": statistics.fmean(means),
            "sd_ms": statistics.stdev(means),
            "runs": runs,
        }
        (out / f"{name}.json").write_text(json.dumps(fixture, indent=1) + "\n")
        print(f"{name}: {fixture['mean_ms']:.3f} ms (sd {fixture['sd_ms']:.3f}) over {n} seeds",
              file=sys.stderr)
        print("| seed | mean, ms | run, s | processors working (busy s) |")
        print("|---:|---:|---:|---|")
        for r in runs:
            cpus = ", ".join(f"#{c['cpu']} ({c['busy_ms'] / 1000.0:.0f})"
                             for c in r["processors_working"])
            print(f"| {r['seed']} | {r['mean_ms']:.3f} | {r['run_s']:.1f} | {cpus} |")
    return 0
