"""Sweep files fuzzed with hypothesis: whatever a sweep file or mapping holds, reading it
gives a sweep or a `headway.ConfigError` naming the problem, never another exception (the
parsers of the experiments inside are fuzzed in fuzz/ and test_fuzz_api.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conftest import fuzz_scalars, fuzz_settings

import headway
from headway.sweeps.spec import parse_sweep

EXAMPLES = fuzz_settings(max_examples=80)

scalars = fuzz_scalars(
    ["host.scheduler", "drive.queue_depth", "workload.requests", "fcfs", "sptf", "elite3"],
    max_text=10,
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)
top = st.dictionaries(
    st.sampled_from(["base", "grid", "zip", "points", "seeds", "confidence", "bogus"]),
    values,
    max_size=5,
)


def _read(data):
    try:
        return parse_sweep(data)
    except headway.ConfigError:
        return None


@EXAMPLES
@given(top)
def test_any_sweep_mapping_is_read_or_refused_with_a_config_error(data):
    _read({k: v for k, v in data.items() if v is not None})


@EXAMPLES
@given(st.text(max_size=200))
def test_any_sweep_text_is_read_or_refused_with_a_config_error(text):
    _read(text)


@EXAMPLES
@given(
    st.dictionaries(st.sampled_from(["host.scheduler", "drive.queue_depth", "workload.requests"]), values, max_size=3)
)
def test_any_grid_is_read_or_refused_with_a_config_error(grid):
    _read({"base": {"drive": {"name": "elite3"}, "workload": {"requests": 10}}, "grid": grid})
