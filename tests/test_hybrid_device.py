"""The hybrid drive as a `[[devices]]` kind and the typed `headway.Device` fields for it
(`platter`, `flash`, `pins`, `concurrent`) and for power states (`power`)."""

from __future__ import annotations

import headway
import pytest

from conftest import ROOT

LAPTOP_POWER = {"active_w": 2.0, "idle_w": 0.85, "standby_w": 0.2, "spinup_ms": 3000.0,
                "spinup_j": 13.5, "spindown_timeout_ms": 500.0}
WORKLOAD = {"name": "w", "kind": "open", "requests": 400, "rate_iops": 40.0, "size_sectors": 8,
            "read_fraction": 1.0, "device": "d",
            "locality": {"kind": "hot", "regions": [
                {"start_fraction": 0.0, "size_fraction": 0.001, "access_fraction": 0.5}]}}


def run(device: headway.Device):
    cfg = headway.Config(devices=[device], workloads=[WORKLOAD], seed=2)
    return headway.run(cfg).summary


def test_typed_device_carries_power_and_the_run_reports_energy():
    s = run(headway.Device(name="d", drive="ek1000", power=LAPTOP_POWER))
    assert s["requests"] == 400
    energy = s["energy"]["d"]
    parts = energy["active_j"] + energy["idle_j"] + energy["standby_j"] + energy["spinup_j"]
    assert energy["total_j"] == pytest.approx(parts)
    assert energy["total_j"] > 0


def test_a_hybrid_with_power_states_reports_its_platter_energy():
    s = run(headway.Device(name="d", drive="hybrid", platter="ek1000", power=LAPTOP_POWER,
                           pins=[{"lbn": 0, "sectors": 262144, "populate": True}]))
    assert s["requests"] == 400
    assert s["energy"]["d"]["total_j"] > 0


def test_typed_hybrid_serves_pinned_reads_from_flash():
    pinned = run(headway.Device(name="d", drive="hybrid", platter="ek1000",
                                flash={"logical_bytes": 134217728},
                                pins=[{"lbn": 0, "sectors": 262144, "populate": True}]))
    plain = run(headway.Device(name="d", drive="ek1000"))
    assert pinned["requests"] == plain["requests"] == 400
    # Half the reads hit the pinned band: served by flash, far below a platter access.
    assert pinned["mean_service_ms"] < 0.7 * plain["mean_service_ms"]


def test_hybrid_example_runs():
    assert headway.run(ROOT / "examples" / "hybrid_drive.toml").summary["requests"] == 2000


def test_a_hybrid_without_a_platter_is_a_keyed_error():
    with pytest.raises(headway.ConfigError, match=r"devices\[0\]\.platter"):
        run(headway.Device(name="d", drive="hybrid"))


def test_cli_refuses_a_hybrid_without_a_platter_in_one_keyed_line(tmp_path):
    from conftest import headway_cli

    p = tmp_path / "h.toml"
    p.write_text('[[devices]]\nname = "h"\ndrive = "hybrid"\n[[workloads]]\nrequests = 3\n')
    r = headway_cli("run", str(p))
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    assert "devices[0].platter" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    # Refused when the drive is built, and still naming the file like a reading error.
    assert r.stderr.startswith(f"error: {p}: key "), r.stderr
