"""Every paper's reproduction refuses a zero count (nothing to measure) as a keyed ConfigError
before any run, from one shared check in the binding."""

from __future__ import annotations

import importlib

import pytest

import headway


@pytest.mark.parametrize(
    "module, option",
    [
        ("rotational", "trace_requests"),
        ("rotational", "requests_per_queued"),
        ("anticipatory", "requests"),
        ("freeblock", "requests"),
        ("flash_backed", "synthetic_requests"),
    ],
)
def test_a_zero_count_is_a_keyed_error(module, option):
    paper = importlib.import_module(f"headway.{module}")
    with pytest.raises(headway.ConfigError, match=rf"key `{option}`: must be at least 1"):
        paper.reproduce(quick=True, progress=False, **{option: 0})
