"""`headway extract --device`: its refusals through the CLI (one `error:` line naming the
path), and the catalog's `actuators`. The calibration itself is tested end to end in Rust
against an emulated device (crates/headway/tests/integration/extract_device.rs)."""

from __future__ import annotations

import headway
from test_cli_errors import fails_cleanly


def test_a_missing_device_is_named(cli, tmp_path):
    path = tmp_path / "no-such-disk"
    msg = fails_cleanly(cli("extract", "--device", path))
    assert msg.startswith(f"error: {path}: cannot open with O_DIRECT"), msg


def test_a_device_too_small_is_refused(cli, tmp_path):
    path = tmp_path / "small.img"
    path.write_bytes(b"\0" * 256 * 1024)  # under the 512 KiB minimum
    out = cli("extract", "--device", path)
    if "cannot open with O_DIRECT" in out.stderr:
        # A temporary directory on a file system without direct I/O refuses at the open.
        fails_cleanly(out)
        return
    msg = fails_cleanly(out)
    assert "too small to calibrate" in msg and str(path) in msg, msg


def test_writable_and_out_need_a_device(cli, tmp_path):
    msg = fails_cleanly(cli("extract", "--writable"), code=2)
    assert "--device" in msg, msg


def test_disks_give_each_drives_actuators():
    d = headway.disks().set_index("name")["actuators"]
    assert d["exos_2x14"] == 2
    assert d["ultrastar_hc310"] == 1 and d["atlas10k"] == 1
