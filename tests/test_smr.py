"""Shingled and zoned drives from Python: the typed config reaches the simulator, a bad
parameter is an error naming its key, and the catalog says how each drive records."""

from __future__ import annotations

import pytest

import headway


def _config(**drive):
    return headway.Config(
        drive=headway.Drive(name="ek1000", **drive),
        workload={"kind": "closed", "processes": 1, "think_ms": 0.0, "requests": 200,
                  "read_fraction": 0.0, "size_sectors": 8},
        seed=3,
    )


def test_a_random_write_burst_runs_on_a_drive_managed_smr_layer():
    smr = {"media_cache_sectors": 512, "band_sectors": 5208, "idle_clean_delay_ms": 500.0}
    burst = headway.run(_config(smr=smr))
    plain = headway.run(_config())
    assert burst.summary.requests == plain.summary.requests == 200
    # Once the 512-sector cache is full every write waits for a band cleaning.
    assert burst.summary.mean_response_ms > 5 * plain.summary.mean_response_ms


def test_a_zone_size_that_does_not_divide_the_drive_names_its_key():
    with pytest.raises(headway.HeadwayError, match=r"drive\.zoned\.zone_size_sectors"):
        headway.run(_config(zoned={"zone_size_sectors": 524288}))


def test_a_band_of_no_sectors_names_its_key():
    with pytest.raises(headway.HeadwayError, match=r"drive\.smr\.band_sectors"):
        headway.run(_config(smr={"media_cache_sectors": 512, "band_sectors": 0}))


def test_the_catalog_says_how_each_drive_records():
    recording = headway.disks().set_index("name").recording
    assert recording["st5000as0011"] == "smr-drive-managed"
    assert recording["st8000as0002"] == "smr-drive-managed"
    assert set(recording) <= {"cmr", "smr-drive-managed", "smr-host-managed"}
