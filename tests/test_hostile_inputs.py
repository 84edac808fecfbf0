"""Every class of hostile input, through the CLI as a user would hand it over: a drive file
with absurd numbers, a DiskSim file that reaches outside its folder or sources itself over
and over, a compressed trace that inflates to gigabytes without a newline, a trace whose
fields are NaN, infinite, negative or run backwards. Each must end with exit code 1, one
line `error: ...` naming what is wrong, no traceback, and a peak memory under
PEAK_RSS_BOUND_MIB (measured from the child's own rusage, not guessed from timing).
docs/reliability.md lists the bounds each parser keeps."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import pytest

from conftest import ELITE3_TOML, ROOT, _headway_command

DISKSIM = ROOT / "crates" / "headway" / "catalog" / "disksim"

# The CLI is Python with numpy, pandas and pyarrow loaded (about 150 MiB of it before any
# work); a parser that allocated from a hostile number would need gigabytes.
PEAK_RSS_BOUND_MIB = 400


# Runs the CLI as a child of a fresh, small interpreter and writes that child's peak RSS
# (KiB) to a file. Measuring from the test process itself would count the test process: a
# forked child starts with its parent's resident pages, and pytest may have grown to
# hundreds of MiB by then.
_MEASURE = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def run_measured(*args, cwd=None, timeout=120):
    """Run the CLI; return (exit code, stdout, stderr, peak RSS of the CLI process in MiB)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryDirectory() as tmp:
        peak_file = os.path.join(tmp, "peak")
        proc = subprocess.Popen(
            [sys.executable, "-c", _MEASURE, peak_file, *_headway_command(), *map(str, args)],
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
        )
        try:
            proc.wait(timeout=timeout)
        except BaseException:
            proc.kill()
            raise
        out.seek(0)
        err.seek(0)
        with open(peak_file) as f:
            peak_kib = int(f.read())
        return proc.returncode, out.read().decode(), err.read().decode(), peak_kib / 1024


def fails_cleanly(*args, cwd=None):
    """The one error line of a CLI run that must fail on its input."""
    code, out, err, peak_mib = run_measured(*args, cwd=cwd)
    assert code == 1, (code, out, err)
    assert "Traceback" not in err and "Traceback" not in out and "panicked" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert peak_mib < PEAK_RSS_BOUND_MIB, f"peak RSS {peak_mib:.0f} MiB for {args}"
    return lines[0]


def atlas_copy(dest: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """The Atlas 10K's DiskSim files copied into `dest`, each file's first match of the regex
    replaced; returns the experiment file that runs the copy."""
    for name in ["atlas10k.diskspecs", "atlas10k.model", "atlas10k.seek"]:
        text = (DISKSIM / name).read_text()
        if name in edits:
            pattern, repl = edits[name]
            text, n = re.subn(pattern, repl, text, count=1)
            assert n == 1, (name, pattern)
        (dest / name).write_text(text)
    exp = dest / "exp.toml"
    exp.write_text('[drive]\nname = "atlas10k.diskspecs"\n[workload]\nrequests = 10\n')
    return exp


def test_the_unedited_copy_runs(tmp_path):
    """The base the drive cases edit is sound, so each failure below is the edit's."""
    code, out, err, peak_mib = run_measured("run", atlas_copy(tmp_path, {}), "--no-progress")
    assert code == 0, err
    assert peak_mib < PEAK_RSS_BOUND_MIB


@pytest.mark.parametrize(
    "file,pattern,repl,key",
    [
        ("atlas10k.model", r"Number of cylinders = \d+", "Number of cylinders = 4000000000", "Number of cylinders"),
        ("atlas10k.model", r"Blocks per track = \d+", "Blocks per track = 0", "Blocks per track"),
        ("atlas10k.model", r"Rotation speed \(in rpms\) = \d+", "Rotation speed (in rpms) = 0", "Rotation speed (in rpms)"),
        ("atlas10k.model", r"Number of data surfaces = \d+", "Number of data surfaces = 3000000000", "Number of data surfaces"),
        ("atlas10k.seek", r"Seek distances measured: \d+", "Seek distances measured: 1000000000", None),
    ],
)
def test_hostile_numbers_in_a_drive_file(tmp_path, file, pattern, repl, key):
    msg = fails_cleanly("run", atlas_copy(tmp_path, {file: (pattern, repl)}), "--no-progress")
    assert "atlas10k" in msg, msg
    if key:
        assert f"`{key}`" in msg or key in msg, msg


@pytest.mark.parametrize(
    "pattern,repl,key",
    [
        # 4 billion cylinders once aborted the process allocating a 32 GB seek table.
        (r"(?m)^cylinders = \d+", "cylinders = 4000000000", "cylinders"),
        (r"(?m)^surfaces = \d+", "surfaces = 4000000000", "surfaces"),
        (r"(?m)^rpm = [\d.]+", "rpm = 0.0", "rpm"),
        (r"(?m)^rpm = [\d.]+", "rpm = nan", "rpm"),
        (r"(?m)^sectors_per_track = \d+", "sectors_per_track = 0", "layout.zones[0].sectors_per_track"),
    ],
)
def test_hostile_numbers_in_a_headway_drive_toml(tmp_path, pattern, repl, key):
    text, n = re.subn(pattern, repl, ELITE3_TOML.read_text(), count=1)
    assert n == 1, pattern
    (tmp_path / "d.toml").write_text(text)
    exp = tmp_path / "exp.toml"
    exp.write_text('[drive]\nname = "d.toml"\n[workload]\nrequests = 10\n')
    msg = fails_cleanly("run", exp, "--no-progress")
    assert f"key `{key}`" in msg, msg


def test_a_block_count_beyond_the_zones_is_not_allocated(tmp_path):
    """DiskSim uses the sectors the zone table maps when the declared count is larger, and
    so does headway: the absurd number is never a size."""
    exp = atlas_copy(tmp_path, {"atlas10k.model": (r"Block count = +\d+", "Block count = 900000000000000000")})
    code, _, err, peak_mib = run_measured("run", exp, "--no-progress")
    assert code == 0, err
    assert peak_mib < PEAK_RSS_BOUND_MIB


def test_a_seek_table_of_a_million_rows(tmp_path):
    exp = atlas_copy(tmp_path, {})
    seek = tmp_path / "atlas10k.seek"
    with open(seek, "w") as f:
        f.writelines(f"{d}, 1.0\n" for d in range(1, 1_000_001))
    msg = fails_cleanly("run", exp, "--no-progress")
    assert "atlas10k.seek" in msg and "larger than 4 MiB" in msg, msg
    # Under the size bound, the row bound: 150,000 short rows stop at row 100,001.
    with open(seek, "w") as f:
        f.writelines(f"{d},1\n" for d in range(1, 150_001))
    assert seek.stat().st_size < 4 << 20
    msg = fails_cleanly("run", exp, "--no-progress")
    assert "atlas10k.seek:100001:" in msg and "not a seek curve" in msg, msg


def test_a_parameter_file_of_a_terabyte(tmp_path):
    exp = atlas_copy(tmp_path, {})
    with open(tmp_path / "atlas10k.model", "r+b") as f:
        f.truncate(1 << 40)  # sparse: costs no disk
    msg = fails_cleanly("run", exp, "--no-progress")
    assert "atlas10k.model" in msg and "larger than 4 MiB" in msg, msg


@pytest.mark.parametrize("name", ["../elsewhere.model", "/etc/hostname", "sub/../../x.model"])
def test_a_drive_file_that_reaches_outside_its_folder(tmp_path, name):
    drives = tmp_path / "drives"
    drives.mkdir()
    (tmp_path / "elsewhere.model").write_text((DISKSIM / "atlas10k.model").read_text())
    exp = atlas_copy(drives, {"atlas10k.diskspecs": (r"source atlas10k\.model", f"source {name}")})
    msg = fails_cleanly("run", exp, "--no-progress")
    assert "atlas10k.diskspecs:2:" in msg and "`Model`" in msg and "no absolute path, no `..`" in msg, msg


def test_a_drive_file_in_a_subfolder_is_fine(tmp_path):
    exp = atlas_copy(tmp_path, {"atlas10k.diskspecs": (r"source atlas10k\.model", "source sub/atlas10k.model")})
    (tmp_path / "sub").mkdir()
    shutil.move(tmp_path / "atlas10k.model", tmp_path / "sub" / "atlas10k.model")
    shutil.move(tmp_path / "atlas10k.seek", tmp_path / "sub" / "atlas10k.seek")
    code, _, err, _ = run_measured("run", exp, "--no-progress")
    assert code == 0, err


def test_a_drive_file_that_sources_itself_over_and_over(tmp_path):
    (tmp_path / "a.diskspecs").write_text("source b.diskspecs\n")
    (tmp_path / "b.diskspecs").write_text("source b.diskspecs\nsource b.diskspecs\n")
    exp = tmp_path / "exp.toml"
    exp.write_text('[drive]\nname = "a.diskspecs"\n')
    msg = fails_cleanly("run", exp, "--no-progress")
    assert "b.diskspecs:1:" in msg and "`source`" in msg, msg
    assert "nests too deep" in msg or "files sourced in all" in msg, msg


def test_a_drive_path_in_toml_resolves_against_the_toml_file(tmp_path):
    """A relative drive path is the experiment file's neighbour, wherever the CLI runs."""
    (tmp_path / "d").mkdir()
    exp = atlas_copy(tmp_path / "d", {})
    code, _, err, _ = run_measured("run", exp, "--no-progress", cwd="/")
    assert code == 0, err


def gzip_bomb(path: Path, gib: int) -> None:
    """A gzip file that inflates to `gib` GiB of 'x' with no newline, a few MiB on disk:
    one member of 64 MiB repeated (concatenated members are valid gzip)."""
    member = gzip.compress(b"x" * (64 << 20), compresslevel=9)
    with open(path, "wb") as f:
        for _ in range(gib * 16):
            f.write(member)


def test_a_gzip_trace_that_inflates_to_gigabytes_without_a_newline(tmp_path):
    bomb = tmp_path / "bomb.trace.gz"
    gzip_bomb(bomb, 2)
    assert bomb.stat().st_size < 8 << 20
    msg = fails_cleanly("replay", bomb, "--format", "disksim-ascii", "--drive", "elite3", "--no-progress")
    assert "bomb.trace.gz:1:" in msg and "longer than 65536 bytes" in msg, msg
    msg = fails_cleanly("trace", "stats", bomb)
    assert "bomb.trace.gz" in msg, msg


def zstd_bomb(path: Path, mib: int) -> None:
    """A zstd frame of RLE blocks (4 bytes each: a 3-byte header and the byte to repeat
    128 KiB times) inflating to `mib` MiB of '7' with no newline; written by hand so the
    test needs no zstd package."""
    block = 128 << 10
    head = b"\x28\xb5\x2f\xfd" + b"\x00" + bytes([7 << 3])  # magic, descriptor, 128 KiB window
    n = mib * 8
    body = bytearray()
    for i in range(n):
        last = 1 if i == n - 1 else 0
        body += ((block << 3) | (1 << 1) | last).to_bytes(3, "little") + b"7"
    path.write_bytes(head + bytes(body))


def test_a_zstd_trace_that_inflates_without_a_newline(tmp_path):
    bomb = tmp_path / "bomb.zst"
    zstd_bomb(bomb, 1024)
    assert bomb.stat().st_size < 64 << 10
    msg = fails_cleanly("replay", bomb, "--format", "disksim-ascii", "--drive", "elite3", "--no-progress")
    assert "bomb.zst:1:" in msg and "longer than" in msg, msg


BAD_FIELDS = [
    ("nan-time", "nan 0 8 8 1\n", "time"),
    ("inf-time", "inf 0 8 8 1\n", "time"),
    ("negative-time", "-1 0 8 8 1\n", "must not be negative"),
    ("backwards", "5 0 8 8 1\n", "time goes backwards"),
    ("zero-length", "4 0 8 0 1\n", "at least 1 sector"),
    ("negative-size", "4 0 8 -8 1\n", "bcount"),
    ("negative-address", "4 0 -8 8 1\n", "blkno"),
    ("nan-size", "4 0 8 nan 1\n", "bcount"),
]


@pytest.mark.parametrize("name,line,needle", BAD_FIELDS, ids=[c[0] for c in BAD_FIELDS])
def test_a_bad_trace_line_is_named_by_line_or_skipped_and_counted(tmp_path, name, line, needle):
    trace = tmp_path / "t.trace"
    trace.write_text("0 0 0 8 1\n10 0 16 8 1\n" + line + "20 0 32 8 0\n")
    args = ["replay", trace, "--format", "disksim-ascii", "--drive", "elite3", "--no-progress"]
    msg = fails_cleanly(*args)
    assert "t.trace:3:" in msg and needle in msg, msg
    code, out, err, _ = run_measured(*args, "--skip-bad")
    assert code == 0, err
    assert "Traceback" not in err
    assert re.search(r"skipped 1 bad record", out + err), out + err
    assert "line 3" in out + err, out + err


def test_an_experiment_asking_for_an_absurd_queue_depth(tmp_path):
    """The drive's queue slots are allocated up front: 10^12 of them once aborted the
    process (found by this test)."""
    exp = tmp_path / "exp.toml"
    exp.write_text('[drive]\nname = "elite3"\nqueue_depth = 1000000000000\n[workload]\nrequests = 10\n')
    msg = fails_cleanly("run", exp, "--no-progress")
    assert "key `drive.queue_depth`: must be at most 65536, got 1000000000000" in msg, msg


def sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as f:
        f.truncate(size)  # costs no disk
    return path


def test_an_experiment_file_of_a_terabyte(tmp_path):
    exp = sparse(tmp_path / "exp.toml", 1 << 40)
    msg = fails_cleanly("run", exp, "--no-progress")
    assert "exp.toml" in msg and "larger than 4 MiB" in msg, msg


def test_a_drive_toml_of_a_terabyte(tmp_path):
    sparse(tmp_path / "drive.toml", 1 << 40)
    exp = tmp_path / "exp.toml"
    exp.write_text('[drive]\nname = "drive.toml"\n')
    msg = fails_cleanly("run", exp, "--no-progress")
    assert "drive.toml" in msg and "larger than 4 MiB" in msg, msg


def test_an_xz_trace_asking_for_a_huge_dictionary(tmp_path):
    lzma = pytest.importorskip("lzma", reason="Python built without lzma")
    data = lzma.compress(
        b"0 0 0 8 1\n" * 10,
        format=lzma.FORMAT_XZ,
        filters=[{"id": lzma.FILTER_LZMA2, "dict_size": 1536 << 20, "mf": lzma.MF_HC3, "mode": lzma.MODE_FAST}],
    )
    trace = tmp_path / "big.xz"
    trace.write_bytes(data)
    msg = fails_cleanly("replay", trace, "--format", "disksim-ascii", "--drive", "elite3", "--no-progress")
    assert "big.xz:1:" in msg and "more than 256 MiB to decode" in msg, msg
