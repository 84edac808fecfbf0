"""Named host interfaces and bus overlap from Python and the command line."""

from __future__ import annotations

import json

import pytest

import headway


def test_interfaces_lists_each_with_its_rate_and_source():
    by_name = {i["name"]: i for i in headway.interfaces()}
    assert list(by_name)[0] == "validated"
    assert by_name["validated"]["sector_transfer_ms"] is None
    for name, mb_s in [("ultra2", 80), ("ultra160", 160), ("ultra320", 320), ("ata100", 100),
                       ("sata6g", 600)]:
        i = by_name[name]
        assert i["payload_mb_s"] == mb_s
        assert i["sector_transfer_ms"] == pytest.approx(512 / (mb_s * 1e3))
        assert i["source"]


def _run(**drive):
    cfg = {"drive": {"name": "atlas10k", "queue_depth": 8, "firmware_scheduler": "sptf", **drive},
           "host": {"scheduler": "fcfs", "max_outstanding": 8},
           "workload": {"kind": "closed", "processes": 8, "think_ms": 0.0, "requests": 300,
                        "read_fraction": 1.0}}
    return headway.run(cfg).summary


def test_a_faster_interface_and_bus_overlap_shorten_responses():
    base = _run().mean_response_ms
    assert _run(interface="ultra160").mean_response_ms < base
    assert _run(bus_overlap=True).mean_response_ms < base
    assert _run(interface="validated", bus_overlap=False).mean_response_ms == base


def test_typed_drive_passes_the_keys_through():
    d = headway.Drive(name="atlas10k", interface="ata100", bus_overlap=True).to_dict()
    assert d == {"name": "atlas10k", "interface": "ata100", "bus_overlap": True}


def test_an_unknown_interface_is_a_config_error_naming_the_known_ones():
    with pytest.raises(headway.ConfigError) as e:
        _run(interface="scsi9")
    for name in ("scsi9", "ultra2", "sata6g"):
        assert name in str(e.value)


def test_both_an_interface_and_a_bus_time_are_refused():
    with pytest.raises(headway.ConfigError) as e:
        _run(interface="ultra2", bus_sector_transfer_ms=0.01)
    assert "drive.interface" in str(e.value) and "drive.bus_sector_transfer_ms" in str(e.value)


def test_cli_interfaces(cli):
    out = cli("interfaces", "--json")
    assert out.returncode == 0, out.stderr
    names = [i["name"] for i in json.loads(out.stdout)]
    assert names[:2] == ["validated", "ultra2"]
    table = cli("interfaces")
    assert table.returncode == 0 and "ultra320" in table.stdout
