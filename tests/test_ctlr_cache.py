"""The controller memory cache (``[[devices]] cache = {...}``) through the Python API:
the key reaches the run, cached reads cost no device time, the cache's own device work is
counted under the ``ctlr_cache`` origin, and a bad table is a keyed error."""

from __future__ import annotations

import pytest

import headway


def _config(cache):
    return headway.Config(
        devices=[headway.Device(name="d", drive="atlas10k", cache=cache)],
        workloads=[
            headway.Workload(kind="open", requests=400, interarrival_ms=20.0, size_sectors=8,
                             read_fraction=1.0, device="d",
                             region={"start_fraction": 0.5, "size_fraction": 2e-6}),
        ],
        seed=5,
    )


def test_a_cache_holding_the_workload_serves_repeated_reads_from_memory():
    plain = headway.run(_config(None), records=True)
    cached = headway.run(_config({"size_sectors": 1024, "line_sectors": 64}), records=True)
    assert cached.summary["requests"] == plain.summary["requests"] == 400
    df = cached.requests
    fills = df[df.origin_name == "ctlr_cache"]
    # Eight sectors at a time over 64: at most 64 sectors ever filled, the rest are hits.
    assert 0 < fills.sectors.sum() <= 64
    assert cached.summary["mean_response_ms"] < plain.summary["mean_response_ms"] / 4


def test_a_bad_cache_table_names_its_key():
    with pytest.raises(headway.HeadwayError, match=r"devices\[0\]\.cache\.line_sectors"):
        headway.run(_config({"size_sectors": 100, "line_sectors": 64}))
