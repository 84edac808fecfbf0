"""Output files: every output path is checked before any work (missing folders are created,
an impossible path is refused with one keyed line), and every file is written whole or not
at all, so an error, Ctrl-C or a crash part-way leaves the old file or none."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from headway._write import replacing, write_text
from conftest import ROOT

VALIDATION_TRACE = ROOT / "crates" / "headway" / "catalog" / "validation" / "atlas10k.trace"
IMPOSSIBLE = "/proc/headway-nope"  # /proc takes no new folders, even for root


def fails_up_front(out, flag, t0, limit_s=10.0):
    assert out.returncode == 1, (out.returncode, out.stdout, out.stderr)
    assert time.monotonic() - t0 < limit_s, "the path should be refused before any work"
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {flag} "), out.stderr
    assert "Errno" not in out.stderr and "Traceback" not in out.stderr
    return lines[0]


# --- written whole or not at all ----------------------------------------------------------


def test_an_interrupted_write_keeps_the_old_file_and_leaves_nothing_else(tmp_path):
    p = tmp_path / "summary.json"
    p.write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with replacing(p) as tmp:
            tmp.write_text("half of the new")
            raise KeyboardInterrupt
    assert p.read_text() == "old"
    assert os.listdir(tmp_path) == ["summary.json"]


def test_a_failed_first_write_leaves_no_file(tmp_path):
    p = tmp_path / "records.csv"
    with pytest.raises(RuntimeError):
        with replacing(p) as tmp:
            tmp.write_text("id,arrival_ns\n1,")
            raise RuntimeError("the writer failed")
    assert os.listdir(tmp_path) == []


def test_a_completed_write_replaces_with_ordinary_permissions(tmp_path):
    p = tmp_path / "s.json"
    p.write_text("old")
    write_text(p, "new")
    assert p.read_text() == "new" and os.listdir(tmp_path) == ["s.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert p.stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_crash_mid_write_never_leaves_a_partial_destination(tmp_path):
    """A process killed outright (no cleanup can run) part-way through a write: the
    destination still holds the old file whole."""
    p = tmp_path / "out.csv"
    p.write_text("old,whole\n")
    child = (
        "import os, signal, sys\n"
        "from headway._write import replacing\n"
        "with replacing(sys.argv[1]) as tmp:\n"
        "    with open(tmp, 'w') as f:\n"
        "        f.write('new,half')\n"
        "        f.flush()\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    out = subprocess.run([sys.executable, "-c", child, str(p)], capture_output=True)
    assert out.returncode == -signal.SIGKILL
    assert p.read_text() == "old,whole\n"


def test_a_conversion_that_fails_part_way_leaves_no_half_converted_file(cli, tmp_path):
    # Enough good records that the converter has written to disk before it meets the bad one.
    src = tmp_path / "in.trace"
    with open(src, "w") as f:
        for i in range(60_000):
            f.write(f"{i * 0.5:.3f} 0 {i * 8} 8 1\n")
        f.write("not a record\n")
    for to, name in (("csv", "out.csv"), ("disksim-ascii", "out.trace"), ("parquet", "out.parquet")):
        out = cli("trace", "convert", src, tmp_path / name, "--to", to, "--format", "disksim-ascii")
        assert out.returncode == 1 and "in.trace:60001" in out.stderr, out.stderr
        assert sorted(os.listdir(tmp_path)) == ["in.trace"], (to, os.listdir(tmp_path))


# --- checked before the work --------------------------------------------------------------


def test_reproduce_refuses_an_impossible_out_folder_before_computing(cli):
    t0 = time.monotonic()
    msg = fails_up_front(cli("reproduce", "rotational", "--quick", "--out", IMPOSSIBLE), "--out", t0)
    assert msg.startswith(f"error: --out {IMPOSSIBLE}: cannot create folder ("), msg


@pytest.mark.parametrize(
    "args, flag",
    [
        (["run", "--json", f"{IMPOSSIBLE}/s.json"], "--json"),
        (["run", "--csv", f"{IMPOSSIBLE}/s.csv"], "--csv"),
        (["run", "--parquet", f"{IMPOSSIBLE}/s.parquet"], "--parquet"),
        (["run", "--records", f"{IMPOSSIBLE}/r.parquet"], "--records"),
        (["validate", "atlas10k", "--plot", f"{IMPOSSIBLE}/cdf.png"], "--plot"),
        (["validate", "atlas10k", "--requests-out", f"{IMPOSSIBLE}/p.csv"], "--requests-out"),
        (["validate", "all", "--json", f"{IMPOSSIBLE}/v.json"], "--json"),
        (["bench", "--json", f"{IMPOSSIBLE}/b.json"], "--json"),
        (["extract", "--json", f"{IMPOSSIBLE}/e.json"], "--json"),
        (["trace", "stats", str(VALIDATION_TRACE), "--json", f"{IMPOSSIBLE}/t.json"], "--json"),
        (["trace", "convert", str(VALIDATION_TRACE), f"{IMPOSSIBLE}/t.csv", "--to", "csv"], "OUTPUT"),
    ],
)
def test_every_output_flag_is_checked_up_front(cli, args, flag):
    t0 = time.monotonic()
    msg = fails_up_front(cli(*args), flag, t0)
    assert f"cannot create folder {IMPOSSIBLE} (" in msg, msg


def test_a_folder_given_as_an_output_file_is_refused(cli, tmp_path):
    t0 = time.monotonic()
    msg = fails_up_front(cli("run", "--json", tmp_path), "--json", t0)
    assert "is a folder" in msg


def test_missing_folders_are_created_for_every_output(cli, tmp_path):
    out = cli("validate", "atlas10k", "--plot", tmp_path / "a" / "cdf.png", "--json", tmp_path / "b" / "v.json",
              "--requests-out", tmp_path / "c" / "p.csv")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "a" / "cdf.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "b" / "v.json").exists() and (tmp_path / "c" / "p.csv").exists()
    exp = tmp_path / "exp.toml"
    exp.write_text('[drive]\nname = "elite3"\n[workload]\nrequests = 50\n')
    out = cli("run", exp, "-q", "--json", tmp_path / "d" / "s.json", "--records", tmp_path / "e" / "r.csv")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "d" / "s.json").exists() and (tmp_path / "e" / "r.csv").exists()
    out = cli("trace", "convert", VALIDATION_TRACE, tmp_path / "f" / "t.csv", "--to", "csv")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "f" / "t.csv").exists()
