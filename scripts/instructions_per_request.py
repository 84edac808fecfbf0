#!/usr/bin/env python3
"""Instructions a request of headway's simulation core, counted by callgrind: the speed
measure of docs/performance.md, stable on a loaded machine where wall-clock times are not.

Two cases of the reference benchmark (python/headway/bench.py): the Quantum Atlas 10K
holding up to 64 commands and ordering them itself, FCFS at the moderate load (12 ms mean
inter-arrival, seed 1) and SPTF at the heavy load (5.5 ms, seed 2). Each is replayed by the
`replay_trace` example under callgrind twice, on a short and a long prefix of the same
trace (1,000 and 100,000 requests by default); the difference of the two counts over the
difference of the lengths takes out the start-up (loading the drive, building the tables):

    per request = (I(long) - I(short)) // (long - short)

The traces are written here with the benchmark's own generator (headway/_bench_trace.py,
byte-identical to the project's DiskSim inputs), so no file from outside the repository
is needed. Needs valgrind (callgrind); builds the example with cargo unless --binary is
given (an older build, to compare against).

    python3 scripts/instructions_per_request.py
    python3 scripts/instructions_per_request.py --binary OLD/replay_trace --keep /tmp/ipr

Prints one line a case, "CASE I(long) I(short) PER_REQUEST", for example:

    fcfs 413829922 16964134 4008
    sptf 603092239 18832088 5901

The raw counts move by a few thousand with the paths and the environment; the figure a
request does not.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, NamedTuple, Optional

REPO = Path(__file__).resolve().parents[1]
PROG = "instructions_per_request"


class Case(NamedTuple):
    """One measured case: the drive's scheduler and the benchmark load it runs at."""

    scheduler: str
    load: str


CASES = (Case("fcfs", "moderate"), Case("sptf", "heavy"))


class Failure(Exception):
    """A problem to report in one line, with the exit status to leave with."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


def _bench_trace():
    """headway's benchmark generator, loaded from this checkout by its path: it imports only
    the standard library, so the compiled extension need not be built (or installed)."""
    path = REPO / "python" / "headway" / "_bench_trace.py"
    spec = importlib.util.spec_from_file_location("headway_bench_trace", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it executes
    spec.loader.exec_module(module)
    return module


def write_traces(folder: Path, lengths: List[int]) -> dict:
    """The benchmark's trace of each load, cut at each length: ``{(load, length): path}``.
    Each length is a prefix of the longer ones (one random stream a seed)."""
    gen = _bench_trace()
    paths = {}
    for case in CASES:
        load = gen.LOADS[case.load]
        for n in lengths:
            path = folder / f"rand4k_{n}_ia{load.interarrival_ms:g}_seed{load.seed}.trace"
            with open(path, "w", encoding="ascii", newline="\n") as f:
                gen.write_trace(f, n, load.interarrival_ms, load.seed)
            paths[(case.load, n)] = path
    return paths


def find_valgrind() -> str:
    path = shutil.which("valgrind")
    if path is None:
        raise Failure(
            "valgrind not found on PATH: the instruction counts come from its callgrind tool "
            "(install valgrind, e.g. `apt-get install valgrind`)",
            status=3,
        )
    return path


def build_example() -> Path:
    """`cargo build --release -p headway --example replay_trace`; the executable cargo
    reports (so CARGO_TARGET_DIR and the like are honoured)."""
    if shutil.which("cargo") is None:
        raise Failure(
            "cargo not found on PATH: install Rust, or pass --binary PATH of a built replay_trace", 3
        )
    cmd = [
        "cargo",
        "build",
        "--release",
        "-p",
        "headway",
        "--example",
        "replay_trace",
        "--message-format=json-render-diagnostics",
    ]
    print("building: " + " ".join(cmd[:7]), file=sys.stderr)
    done = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise Failure(f"`{' '.join(cmd[:7])}` failed (status {done.returncode}; its errors are above)")
    for line in done.stdout.splitlines():
        msg = json.loads(line)
        if (
            msg.get("reason") == "compiler-artifact"
            and msg["target"]["name"] == "replay_trace"
            and msg.get("executable")
        ):
            return Path(msg["executable"])
    raise Failure("cargo built, but reported no replay_trace executable")


def check_binary(path: Path) -> Path:
    if not path.is_file():
        raise Failure(f"--binary {path}: no such file", 2)
    if not os.access(path, os.X_OK):
        raise Failure(f"--binary {path}: not executable", 2)
    return path.resolve()


def replay_args(binary: Path, trace: Path, scheduler: str) -> List[str]:
    """The example's command line. It takes a drive name, a host scheduler and extra
    workload keys, and pastes the drive name into its TOML: the drive's queue and scheduler
    ride in after the name, so that builds from before this script measure the same way."""
    drive = f'atlas10k"\nqueue_depth = 64\nfirmware_scheduler = "{scheduler}'
    return [str(binary), str(trace), drive, "fcfs", 'format = "disksim-ascii"']


def count_instructions(
    valgrind: str, binary: Path, trace: Path, scheduler: str, requests: int, out: Path
) -> int:
    """Instructions of one replay under callgrind; checks the replay simulated the trace."""
    cmd = [
        valgrind,
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        *replay_args(binary, trace, scheduler),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise Failure(
            f"{scheduler} on {trace.name}: the replay under callgrind failed "
            f"(status {done.returncode}): {tail}"
        )
    simulated = re.match(r"(\d+) requests in ", done.stdout)
    if not simulated or int(simulated.group(1)) != requests:
        raise Failure(
            f"{scheduler} on {trace.name}: expected {requests} requests simulated, "
            f"the replay said {done.stdout.strip()!r}"
        )
    collected = re.search(r"^==\d+== Collected : (\d+)$", done.stderr, re.MULTILINE)
    if not collected:
        raise Failure(f"{scheduler} on {trace.name}: no `Collected :` line in callgrind's output")
    return int(collected.group(1))


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Instructions a request of the replay example (callgrind), FCFS at 12 ms and "
        "SPTF at 5.5 ms mean inter-arrival, drive queue 64, Atlas 10K. Prints "
        "`CASE I(long) I(short) PER_REQUEST` a line.",
    )
    parser.add_argument(
        "--binary", type=Path, help="a built replay_trace example (default: build this checkout's)"
    )
    parser.add_argument(
        "--short", type=positive_int, default=1_000, help="requests of the short run (default 1000)"
    )
    parser.add_argument(
        "--long", type=positive_int, default=100_000, help="requests of the long run (default 100000)"
    )
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="write the traces and callgrind profiles here and keep them"
    )
    args = parser.parse_args(argv)
    if args.long <= args.short:
        parser.error(f"--long ({args.long}) must be more than --short ({args.short})")
    return args


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    try:
        given = check_binary(args.binary) if args.binary else None
        valgrind = find_valgrind()  # before a build of minutes that could not be measured
        binary = given or build_example()
        with tempfile.TemporaryDirectory(prefix="headway_ipr_") as scratch:
            folder = args.keep or Path(scratch)
            folder.mkdir(parents=True, exist_ok=True)
            traces = write_traces(folder, [args.short, args.long])
            for case in CASES:
                counts = {
                    n: count_instructions(
                        valgrind,
                        binary,
                        traces[(case.load, n)],
                        case.scheduler,
                        n,
                        folder / f"callgrind.{case.scheduler}.{case.load}.{n}.out",
                    )
                    for n in (args.long, args.short)
                }
                per_request = (counts[args.long] - counts[args.short]) // (args.long - args.short)
                print(f"{case.scheduler} {counts[args.long]} {counts[args.short]} {per_request}", flush=True)
    except Failure as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return e.status
    return 0


if __name__ == "__main__":
    sys.exit(main())
