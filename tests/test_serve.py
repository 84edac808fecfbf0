"""`headway serve` with real clients (qemu-io, fio; SQLite through nbdfuse where FUSE
mounts work) and with a hand-made client for what real ones never send. The drive runs at
--speed 20 to keep each test to seconds; clients absent from the machine are skipped with
the reason."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLES, _headway_command, headway_cli, wait_for_nbdfuse_mount
from nbd_client import NbdClient

CONFIG = EXAMPLES / "serve.toml"
SPEED = "20"


class Served:
    """A `headway serve` process on a Unix socket in ``folder``."""

    def __init__(self, folder: Path, *options: str) -> None:
        self.folder = folder
        self.socket = str(folder / "nbd.sock")
        self.summary = folder / "summary.json"
        self.proc = subprocess.Popen(
            [*_headway_command(), "serve", str(CONFIG), "--nbd", f"unix:{self.socket}", "--speed", SPEED,
             "--json", str(self.summary), *options],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        )
        # The first line says it listens (a socket file left by a killed server proves nothing).
        self.first_line = self.proc.stderr.readline()
        if "listening on" not in self.first_line:
            self.proc.kill()
            raise AssertionError(f"the server did not start: {self.first_line}{self.proc.communicate()}")

    @property
    def uri(self) -> str:
        return f"nbd+unix:///0?socket={self.socket}"

    def stop(self, sig: int = signal.SIGTERM) -> dict:
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=60)
        self.stderr = self.first_line + err
        assert self.proc.returncode == 0, err
        return json.loads(self.summary.read_text())

    def kill(self) -> None:
        self.proc.kill()
        self.proc.communicate(timeout=60)


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed (.ci/run installs it from the distribution's packages)")
    return path


def qemu_io(uri: str, *commands: str) -> subprocess.CompletedProcess:
    args = [need("qemu-io"), "-f", "raw"]
    for c in commands:
        args += ["-c", c]
    r = subprocess.run([*args, uri], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "fail" not in r.stdout.lower(), r.stdout + r.stderr
    return r


def test_qemu_io_reads_back_what_it_wrote_and_the_summary_has_the_pacing(tmp_path):
    need("qemu-io")
    s = Served(tmp_path)
    try:
        qemu_io(s.uri, "write -P 0xab 4096 64k", "read -P 0xab 4096 64k", "read -P 0 1M 4k")
        qemu_io(s.uri.replace("///0", "///disk"), "read -P 0xab 8192 4k")
    finally:
        summary = s.stop()
    assert summary["requests"] >= 4
    for key in ("pacing_p50_ms", "pacing_p99_ms", "pacing_max_ms"):
        assert summary[key] is not None and summary[key] >= 0, key
    assert summary["pacing_p50_ms"] <= summary["pacing_p99_ms"] <= summary["pacing_max_ms"]
    assert summary["pacing_replies"] == summary["requests"]


def test_fio_random_reads_over_nbd(tmp_path):
    fio = need("fio")
    if "nbd" not in subprocess.run([fio, "--enghelp"], capture_output=True, text=True).stdout:
        pytest.skip("this fio was built without the nbd engine")
    s = Served(tmp_path)
    try:
        r = subprocess.run(
            [fio, "--name=randread", "--ioengine=nbd", f"--uri={s.uri}", "--rw=randread", "--bs=4k",
             "--size=256m", "--iodepth=4", "--runtime=2", "--time_based", "--output-format=json"],
            capture_output=True, text=True, timeout=120,
        )
        assert r.returncode == 0, r.stdout + r.stderr
        job = json.loads(r.stdout[r.stdout.index("{"):])["jobs"][0]
        assert job["read"]["total_ios"] > 0 and job["error"] == 0
    finally:
        summary = s.stop()
    assert summary["requests"] >= job["read"]["total_ios"]


def test_flushed_blocks_survive_a_killed_server(tmp_path):
    need("qemu-io")
    backing = tmp_path / "disk.img"
    s = Served(tmp_path, "--backing", str(backing))
    try:
        qemu_io(s.uri, "write -P 0x5a 0 256k", "flush", "write -f -P 0x6b 1M 4k")
    finally:
        s.kill()  # SIGKILL: nothing after the flush and the FUA write gets a chance to run
    s = Served(tmp_path, "--backing", str(backing))
    try:
        qemu_io(s.uri, "read -P 0x5a 0 256k", "read -P 0x6b 1M 4k")
    finally:
        s.stop()


def test_malformed_frames_and_requests_past_the_end_leave_the_server_serving(tmp_path):
    s = Served(tmp_path)
    try:
        c = NbdClient(s.socket)
        size = c.size_bytes
        assert size > 0
        assert c.read(size - 512, 1024)[0] == 22  # EINVAL, and the connection stays
        assert c.write(size, b"x" * 512) == 22
        assert c.read(0, (32 << 20) + 1)[0] == 22
        assert c.read(size - 512, 512) == (0, b"\0" * 512)
        c.s.sendall(b"\xde" * 28)
        with pytest.raises(ConnectionError):
            c.reply()
        other = NbdClient(s.socket)
        assert other.write(0, b"alive" * 100, flags=1) == 0
        assert other.read(0, 500) == (0, b"alive" * 100)
        other.close()
    finally:
        s.stop()
    assert "malformed" not in s.stderr or "closing it" in s.stderr
    assert "request magic" in s.stderr


def test_two_connections_are_two_processes_and_the_maximum_is_enforced(tmp_path):
    s = Served(tmp_path, "--max-connections", "2", "--records", str(tmp_path / "records.csv"))
    try:
        a, b = NbdClient(s.socket), NbdClient(s.socket)
        with pytest.raises((ConnectionError, OSError)):
            NbdClient(s.socket, timeout=5)
        for i in range(5):
            a.send(0, i * 1_000_000, 4096, handle=i)
            b.send(0, 5_000_000_000 + i * 1_000_000, 4096, handle=100 + i)
        assert sorted(a.reply(4096)[1] for _ in range(5)) == list(range(5))
        assert sorted(b.reply(4096)[1] for _ in range(5)) == list(range(100, 105))
        a.close()
        b.close()
    finally:
        s.stop()
    with open(tmp_path / "records.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 10
    assert sorted({r["process"] for r in rows}) == ["1", "2"]
    assert "refusing a connection" in s.stderr


def test_a_replay_of_the_recorded_arrivals_completes_every_request_when_the_live_run_did(tmp_path):
    """The live run is the simulator's run: `headway replay` of its arrivals (FIU format)
    gives the same completions, to the nanosecond."""
    need("qemu-io")
    arrivals = tmp_path / "arrivals.fiu"
    s = Served(tmp_path, "--record-arrivals", str(arrivals), "--records", str(tmp_path / "live.csv"))
    try:
        qemu_io(s.uri, "write -P 1 0 8k", "read 0 8k", "aio_read 100M 4k", "aio_read 50M 4k", "aio_flush",
                "write -f 3G 64k", "read 2G 4k")
        c1, c2 = NbdClient(s.socket), NbdClient(s.socket)
        for i in range(6):
            c1.send(0, (i * 7919 % 1000) * 8_000_000, 4096, handle=i)
            c2.send(0, (i * 104729 % 1000) * 8_000_000, 8192, handle=i)
        for _ in range(6):
            c1.reply(4096), c2.reply(8192)
        c1.close()
        c2.close()
    finally:
        s.stop()
    r = headway_cli("replay", arrivals, "--format", "fiu", "--drive", "atlas10k", "--scheduler", "sptf",
                    "--queue-depth", "1", "--seed", "1", "--records", tmp_path / "batch.csv", "--quiet")
    assert r.returncode == 0, r.stderr

    def timeline(path):
        with open(path) as f:
            rows = csv.DictReader(f)
            return sorted((int(r["arrival_ns"]), int(r["done_ns"]), r["lbn"], r["process"]) for r in rows)

    live, batch = timeline(tmp_path / "live.csv"), timeline(tmp_path / "batch.csv")
    assert len(live) == 18 and live[0][0] == 0
    assert live == batch


def test_sqlite_on_the_exported_disk_through_nbdfuse(tmp_path):
    nbdfuse = need("nbdfuse")
    sqlite3 = need("sqlite3")
    fusermount = shutil.which("fusermount3") or shutil.which("fusermount")
    if not os.path.exists("/dev/fuse") or fusermount is None:
        pytest.skip("FUSE is not usable here (/dev/fuse or fusermount missing)")
    s = Served(tmp_path)
    mount = tmp_path / "mnt"
    mount.mkdir()
    fuse = subprocess.Popen([nbdfuse, str(mount), s.uri], stderr=subprocess.PIPE, text=True)
    try:
        wait_for_nbdfuse_mount(fuse, mount)
        # The export is the database file itself: SQLite reads and writes its pages on the
        # disk model. An empty database's first page goes on first (a file of zeros is not
        # a database to SQLite; its header says how many pages are in use).
        seed = tmp_path / "seed.db"
        subprocess.run([sqlite3, str(seed), "CREATE TABLE t(x);"], check=True)
        db = mount / "nbd"
        with open(db, "r+b") as f:
            f.write(seed.read_bytes())
        r = subprocess.run([sqlite3, str(db), "PRAGMA journal_mode=MEMORY; "
                            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<500) "
                            "INSERT INTO t SELECT i FROM n; SELECT count(*), sum(x) FROM t;"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip().splitlines()[-1] == "500|125250"
    finally:
        subprocess.run([fusermount, "-u", str(mount)], capture_output=True)
        fuse.wait(timeout=30)
        s.stop()
