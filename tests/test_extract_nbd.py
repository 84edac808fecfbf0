"""`headway extract --device` on a served drive reached through a real file: `headway serve`
exports a small simulated drive over NBD, `nbdfuse` puts the export behind a file path,
and the extraction opens that file with O_DIRECT and reads it with real syscalls.

The drive is under the calibration's 32 MiB minimum on purpose: the test proves the path
(direct I/O through FUSE and NBD to the model, the export's size read through it) in
seconds, and the refusal names the size, not direct I/O. A full calibration through this
path is not run here: it issues about 340,000 timed commands, minutes of wall time even
with the drive sped up, and at --speed 20 the FUSE and NBD round trip of each command is
a large part of the drive's 0.56 ms wall-clock rotation (docs/calibration-drives.md)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from conftest import _headway_command, headway_cli, wait_for_nbdfuse_mount
from test_cli_errors import fails_cleanly

# One zone of the ST41601N's outer tracks (RL tables) on 2 surfaces and 100 cylinders:
# 100 x (2 x 85 - 6) = 16,400 sectors, 8,396,800 bytes.
TINY_DRIVE = """\
name = "tiny"
description = "one zone of the ST41601N (RL tables) on 2 surfaces and 100 cylinders"
rpm = 5400.0
surfaces = 2
cylinders = 100
block_count = 16400
head_switch_ms = 0.0
write_settle_ms = 0.0

[layout]
mapping_scheme = 0
sparing = "cylinder_end"

[[layout.zones]]
first_cylinder = 0
last_cylinder = 99
sectors_per_track = 85
first_block_offset = 0.0
track_skew = 3.0
cylinder_skew = 23.0
spares = 6

[seek]
kind = "sqrt_linear"
threshold = 399
c1_ms = 3.82872
c2_ms = 0.3114
c3_ms = 7.2441
c4_ms = 0.00756
first_ms = [1.248, 2.782, 3.090, 3.456, 3.712, 3.833, 3.835, 3.917, 3.914, 3.941, 4.024, 4.110, 4.159, 4.401, 4.236, 4.242, 4.428, 4.321, 4.406, 4.473, 4.865, 5.327, 5.350, 5.393, 5.411]
"""

SERVE_CONFIG = """\
[drive]
name = "tiny.toml"
queue_depth = 1
[host]
scheduler = "fcfs"
"""


def fuse_tools():
    nbdfuse = shutil.which("nbdfuse")
    if nbdfuse is None:
        pytest.skip("nbdfuse is not installed (.ci/run installs it from the distribution's packages)")
    fusermount = shutil.which("fusermount3") or shutil.which("fusermount")
    if not os.path.exists("/dev/fuse") or fusermount is None:
        pytest.skip("FUSE is not usable here (/dev/fuse or fusermount missing)")
    return nbdfuse, fusermount


def test_extract_device_opens_a_served_drive_through_nbdfuse_with_direct_io(tmp_path):
    nbdfuse, fusermount = fuse_tools()
    (tmp_path / "tiny.toml").write_text(TINY_DRIVE)
    (tmp_path / "serve.toml").write_text(SERVE_CONFIG)
    sock = tmp_path / "nbd.sock"
    server = subprocess.Popen(
        [*_headway_command(), "serve", str(tmp_path / "serve.toml"), "--nbd", f"unix:{sock}",
         "--speed", "20"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )
    mount = tmp_path / "mnt"
    mount.mkdir()
    fuse = None
    try:
        first = server.stderr.readline()
        assert "listening on" in first, first
        fuse = subprocess.Popen([nbdfuse, str(mount), f"nbd+unix:///0?socket={sock}"],
                                stderr=subprocess.PIPE, text=True)
        disk = wait_for_nbdfuse_mount(fuse, mount)
        assert disk.stat().st_size == 16_400 * 512
        # Direct I/O through FUSE works: a sector read with O_DIRECT into an aligned buffer.
        import mmap

        fd = os.open(disk, os.O_RDONLY | os.O_DIRECT)
        try:
            buf = mmap.mmap(-1, 4096)
            assert os.preadv(fd, [buf], 4096) == 4096
        finally:
            os.close(fd)
        # The extraction gets past the O_DIRECT open and reads the export's size: refused
        # for the size, naming the path.
        msg = fails_cleanly(headway_cli("extract", "--device", disk, timeout=60))
        assert "too small to calibrate" in msg and str(disk) in msg, msg
        assert "O_DIRECT" not in msg, msg
    finally:
        if fuse is not None:
            subprocess.run([fusermount, "-u", str(mount)], capture_output=True)
            fuse.wait(timeout=30)
        server.terminate()
        server.communicate(timeout=60)
