"""scripts/instructions_per_request.py: the traces it writes (the benchmark's workload,
deterministic a seed), its argument and missing-tool handling, and, where valgrind and a
built replay example are at hand, a short callgrind run end to end."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "instructions_per_request.py"
ATLAS10K_SECTORS = 17_938_986


def _load_script():
    spec = importlib.util.spec_from_file_location("instructions_per_request", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ipr = _load_script()


def _run(*args, env=None, timeout=60):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def _records(path: Path):
    return [line.split() for line in path.read_text(encoding="ascii").splitlines()]


def test_traces_are_the_benchmarks_workload(tmp_path):
    paths = ipr.write_traces(tmp_path, [50, 2000])
    assert sorted(paths) == [("heavy", 50), ("heavy", 2000), ("moderate", 50), ("moderate", 2000)]
    for (load, n), path in paths.items():
        records = _records(path)
        assert len(records) == n
        times = [float(r[0]) for r in records]
        assert times == sorted(times) and times[0] > 0
        for _, dev, lbn, size, flags in records:
            assert (dev, size, flags) == ("0", "8", "1")  # one device, 4 KiB, reads
            assert int(lbn) % 8 == 0 and 0 <= int(lbn) <= ATLAS10K_SECTORS - 8
        if n == 2000:
            # The mean gap of 2,000 exponential draws is within 10% (4.5 standard errors).
            mean_gap = times[-1] / n
            assert abs(mean_gap - {"moderate": 12.0, "heavy": 5.5}[load]) < 0.1 * mean_gap
    # The short run is a prefix of the long one, so the difference of the counts is the
    # long run's extra requests and nothing else.
    for load in ("moderate", "heavy"):
        short, long = (paths[(load, n)].read_text() for n in (50, 2000))
        assert long.startswith(short)


def test_traces_are_deterministic_a_seed_and_differ_between_loads(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    a, b = ipr.write_traces(first, [300]), ipr.write_traces(second, [300])
    for key in a:
        assert a[key].read_bytes() == b[key].read_bytes()
    assert a[("moderate", 300)].read_bytes() != a[("heavy", 300)].read_bytes()


def test_traces_are_the_generators_golden_lines(tmp_path):
    # The first lines of the project's DiskSim inputs (`gen_ascii_trace.py N 12 1` and
    # `N 5.5 2`): the script measures on the very traces DiskSim ran.
    paths = ipr.write_traces(tmp_path, [2])
    assert paths[("moderate", 2)].read_text() == "1.731493 0 2117512 8 1\n5.265057 0 16624040 8 1\n"
    assert paths[("heavy", 2)].read_text().startswith("17.183897 0 1897544 8 1\n")


def test_replay_command_line_sets_the_drive_queue_and_scheduler(tmp_path):
    args = ipr.replay_args(Path("/b/replay_trace"), tmp_path / "t.trace", "sptf")
    assert args[0] == "/b/replay_trace" and args[3] == "fcfs" and args[4] == 'format = "disksim-ascii"'
    # The example writes `name = "<drive>"` into its TOML: the queue keys ride in after it.
    assert f'name = "{args[2]}"' == 'name = "atlas10k"\nqueue_depth = 64\nfirmware_scheduler = "sptf"'


@pytest.mark.parametrize(
    "args, message",
    [
        (("--short", "0"), "--short: must be at least 1"),
        (("--long", "many"), "--long: not a whole number"),
        (("--short", "500", "--long", "500"), "--long (500) must be more than --short (500)"),
        (("--bogus",), "unrecognized arguments: --bogus"),
    ],
)
def test_bad_arguments_are_refused(args, message):
    done = _run(*args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_missing_binary_is_one_line(tmp_path):
    done = _run("--binary", str(tmp_path / "no_such_replay"))
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        == f"instructions_per_request: --binary {tmp_path / 'no_such_replay'}: no such file"
    )


def test_missing_valgrind_is_one_clear_line(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))  # an empty folder: no valgrind, no cargo
    done = _run("--binary", sys.executable, env=env)
    assert done.returncode == 3
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("instructions_per_request: valgrind not found") and "callgrind" in lines[0]


def _target() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")


@pytest.fixture(scope="module")
def replay_example() -> Path:
    """The built replay example: the release one when there is one, else built now in the
    test profile (optimised; the release profile's whole-program LTO takes minutes)."""
    for profile in ("release", "debug"):
        path = _target() / profile / "examples" / "replay_trace"
        if path.is_file():
            return path
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("cargo is not installed: the replay example cannot be built")
    subprocess.run([cargo, "build", "--profile", "test", "-p", "headway", "--example", "replay_trace"],
                   cwd=REPO, check=True, stdin=subprocess.DEVNULL)
    return _target() / "debug" / "examples" / "replay_trace"


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed (callgrind counts)")
def test_callgrind_run_end_to_end(tmp_path, replay_example):
    done = _run("--binary", str(replay_example), "--short", "100", "--long", "600", "--keep", str(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = [line.split() for line in done.stdout.splitlines()]
    assert [line[0] for line in lines] == ["fcfs", "sptf"]
    for _, long, short, per_request in lines:
        long, short, per_request = int(long), int(short), int(per_request)
        assert long > short > 0
        assert per_request == (long - short) // 500
        # Thousands of instructions a request (about 3,000 and 4,700 at 100,000 requests), not
        # millions, not a handful: the replay ran and the difference took out the start-up.
        assert 1_000 < per_request < 50_000
    assert len(list(tmp_path.glob("callgrind.*.out"))) == 4


@pytest.mark.skipif(
    shutil.which("valgrind") is None, reason="valgrind is not installed: the script stops at that first"
)
def test_missing_cargo_without_a_binary_is_one_clear_line(tmp_path):
    (tmp_path / "valgrind").symlink_to(shutil.which("valgrind"))  # valgrind, and no cargo
    done = _run(env=dict(os.environ, PATH=str(tmp_path)))
    assert done.returncode == 3
    assert done.stderr.strip() == (
        "instructions_per_request: cargo not found on PATH: install Rust, "
        "or pass --binary PATH of a built replay_trace"
    )
