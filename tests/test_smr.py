"""Shingled and zoned drives from Python: the typed config reaches the simulator, a bad
parameter is an error naming its key, and the catalog says how each drive records."""

from __future__ import annotations

import json

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


def test_the_zoned_example_reports_resets_and_names_each_refusal(cli, tmp_path):
    from conftest import EXAMPLES

    r = headway.run(EXAMPLES / "zoned_writers.toml", records=True)
    (z,) = r.zoned
    assert (z["resets"], z["unaligned_writes"], z["reads_beyond_write_pointer"]) == (16, 5, 5)
    assert r.smr == []
    cols = r.columns()
    errors = list(cols["error"])
    assert errors.count("unaligned-write") == 5
    assert errors.count("read-beyond-write-pointer") == 5
    assert errors.count("") == r.summary.requests - 10
    assert list(cols["zone_op"]).count("reset") == 16
    # `headway run --json` carries the same report.
    out = cli("run", EXAMPLES / "zoned_writers.toml", "-q", "--json", tmp_path / "s.json")
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "s.json").read_text())["zoned"][0]["resets"] == 16


def test_a_run_without_zones_has_no_zoned_or_smr_report_in_its_json():
    out = json.loads(headway.run(_config()).to_json())
    assert "zoned" not in out and "smr" not in out


def _zoned_writers(append: bool, **host):
    return headway.Config(
        drive=headway.Drive(name="ek1000", zoned={"zone_size_sectors": 260400,
                                                  "conventional_zones": 1}),
        workload={"kind": "zoned", "zone_size_sectors": 260400, "first_zone": 1,
                  "writers": 2, "write_sectors": 120, "writes_per_reset": 20, "depth": 4,
                  "append": append},
        host=headway.Host(scheduler="sptf", **host),
    )


def test_zone_write_plugging_and_emulated_appends_from_python():
    bare = headway.run(_zoned_writers(False))
    assert bare.zoned[0]["unaligned_writes"] > 0
    plugged = headway.run(_zoned_writers(False, zone_write_plugging=True))
    assert plugged.zoned[0]["unaligned_writes"] == 0
    assert plugged.summary.requests == 40
    r = headway.run(_zoned_writers(True, zone_append="emulated"), records=True)
    assert (r.zoned[0]["appends"], r.zoned[0]["unaligned_writes"]) == (0, 0)
    cols = r.columns()
    assert set(cols["zone_op"]) == {"append"}
    # Writer 0's appends at zone 1's start plus 120 sectors per earlier append.
    lbns = sorted(l for l, p in zip(cols["lbn"], cols["process"]) if p == 0)
    assert lbns == [260400 + 120 * k for k in range(20)]


def test_zone_plug_merging_from_python():
    def commands(**host):
        r = headway.run(_zoned_writers(False, zone_write_plugging=True, **host), records=True)
        assert (r.summary.requests, r.zoned[0]["unaligned_writes"]) == (40, 0)
        cols = r.columns()
        # A merged command's requests share its dispatch and completion.
        return len(set(zip(cols["dispatch_ns"], cols["done_ns"])))
    assert commands(zone_plug_merge=False) == 40
    assert commands() < 40
    assert commands(zone_plug_max_merge_sectors=120) == 40, "120 sectors: no room to merge"
    with pytest.raises(headway.HeadwayError, match=r"host\.zone_plug_max_merge_sectors"):
        headway.run(_zoned_writers(False, zone_write_plugging=True,
                                   zone_plug_max_merge_sectors=0))


def test_emulated_appends_without_plugging_name_their_key():
    with pytest.raises(headway.HeadwayError, match=r"host\.zone_append"):
        headway.run(_zoned_writers(True, zone_append="emulated", zone_write_plugging=False))
