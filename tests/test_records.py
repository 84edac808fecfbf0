"""Per-request records: conservation, causality, agreement with the summary, tables."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import headway
from headway.testing import assert_conserved
from conftest import small


@pytest.mark.parametrize("scheduler", headway.schedulers())
def test_every_scheduler_conserves_requests(scheduler):
    r = headway.run(small(2000, scheduler=scheduler, interarrival_ms=12.0, read_fraction=0.7), records=True)
    assert_conserved(r)
    df = r.requests
    assert df.id.is_unique and len(df) == 2000
    assert set(df.id) == set(range(2000))
    assert (df.dispatch_ns >= df.arrival_ns).all()
    assert (df.done_ns >= df.dispatch_ns).all()


def test_records_agree_with_the_summary():
    r = headway.run(small(5000, scheduler="sptf", interarrival_ms=14.0), records=True)
    s, df = r.summary, r.requests
    # The summary's distributions come from HDR histograms with 3 significant digits.
    assert df.response_ms.mean() == pytest.approx(s.mean_response_ms, rel=2e-3)
    assert df.response_ms.max() == pytest.approx(s.max_response_ms, rel=2e-3)
    assert np.percentile(df.response_ms, 99) == pytest.approx(s.p99_response_ms, rel=1e-2)
    assert (df.seek_ns.mean() / 1e6) == pytest.approx(s.mean_seek_ms, rel=1e-9)
    assert int(df.is_read.sum()) == s.reads
    assert int(df.sectors.sum()) == 8 * s.requests


def test_frame_and_arrow_types():
    r = headway.run(small(100), records=True)
    df = r.requests
    for col in ("id", "arrival_ns", "dispatch_ns", "start_ns", "done_ns", "seek_ns", "lbn"):
        assert df[col].dtype == np.int64, col
    assert df.is_read.dtype == bool and df.response_ms.dtype == np.float64
    assert r.requests is df  # built once
    table = r.to_arrow()
    assert table.num_rows == 100
    assert str(table.schema.field("done_ns").type) == "int64"
    assert table.column("response_ms").to_pylist() == pytest.approx(df.response_ms.tolist())
    # The columns are views of the simulator's buffers, not copies to be edited.
    assert not r.columns()["id"].flags.writeable


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    scheduler=st.sampled_from(["fcfs", "sstf", "scan", "look", "cscan", "clook", "sptf"]),
    read_fraction=st.floats(min_value=0.0, max_value=1.0),
    interarrival_ms=st.floats(min_value=2.0, max_value=40.0),
)
def test_any_seed_conserves_requests(seed, scheduler, read_fraction, interarrival_ms):
    cfg = small(
        300, scheduler=scheduler, seed=seed, read_fraction=read_fraction, interarrival_ms=interarrival_ms
    )
    assert_conserved(headway.run(cfg, records=True))


def test_assert_conserved_detects_a_lost_request():
    r = headway.run(small(50), records=True)
    broken = headway.Result(r.to_json(), r._raw, '{"arrived": 51}')
    with pytest.raises(AssertionError, match="51 workload requests arrived"):
        assert_conserved(broken)
