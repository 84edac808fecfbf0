"""Helpers for users' own tests of experiments and schedulers."""

from __future__ import annotations

from typing import Optional

import numpy as np

from headway.api import run
from headway.config import ConfigLike
from headway.result import Result

__all__ = ["assert_conserved", "assert_deterministic"]


def assert_conserved(result: Result, *, truncated: bool = False) -> None:
    """Assert that every request that arrived completed exactly once, in causal order.

    Needs a run with ``records=True``. Checks: one record per completed request (workload
    requests and the host's own, such as background reads), ids unique, ``arrival <=
    dispatch <= start <= done``, and (unless the run was cut short by ``output.max_time_s``,
    ``truncated=True``) that every workload arrival and every request the host made
    completed.

    >>> import headway
    >>> from headway.testing import assert_conserved
    >>> assert_conserved(headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 300}},
    ...                              records=True))
    """
    cols = result.columns()
    s = result.summary
    ids = cols["id"]
    n = len(ids)
    completed = s["requests"] + s.get("background_requests", 0)
    if n != completed:
        raise AssertionError(
            f"{n} records but the summary counts {completed} completed requests "
            f"({s['requests']} from workloads + {s.get('background_requests', 0)} made by the host)"
        )
    if "origin" in cols:
        from_workloads = int((cols["origin"] < 0x8000).sum())
        if from_workloads != s["requests"]:
            raise AssertionError(
                f"{from_workloads} records from workloads but the summary counts {s['requests']}"
            )
    if len(np.unique(ids)) != n:
        raise AssertionError(f"{n - len(np.unique(ids))} request id(s) completed more than once")
    for earlier, later in (
        ("arrival_ns", "dispatch_ns"),
        ("dispatch_ns", "start_ns"),
        ("start_ns", "done_ns"),
    ):
        bad = np.flatnonzero(cols[later] < cols[earlier])
        if len(bad):
            i = bad[0]
            raise AssertionError(
                f"{len(bad)} request(s) with {later} < {earlier}, e.g. id {ids[i]}: "
                f"{earlier}={cols[earlier][i]}, {later}={cols[later][i]}"
            )
    arrived = result.meta.get("arrived")
    if not truncated and arrived is not None and arrived != s["requests"]:
        raise AssertionError(f"{arrived} workload requests arrived but {s['requests']} completed")
    made = s.get("host_made_requests", 0)
    if not truncated and made != s.get("background_requests", 0):
        raise AssertionError(
            f"the host made {made} requests but {s.get('background_requests', 0)} completed"
        )


def assert_deterministic(config: ConfigLike = None, seed: Optional[int] = 1, **run_args) -> Result:
    """Run ``config`` twice with the same seed and assert identical summaries and records.
    Returns the first result.

    >>> import headway
    >>> from headway.testing import assert_deterministic
    >>> r = assert_deterministic({"drive": {"name": "elite3"}, "workload": {"requests": 200}}, seed=5)
    >>> r.summary.requests
    200
    """
    a = run(config, seed=seed, records=True, **run_args)
    b = run(config, seed=seed, records=True, **run_args)
    if a.to_json() != b.to_json():
        raise AssertionError(f"same seed, different summaries:\n{a.to_json()}\n{b.to_json()}")
    ca, cb = a.columns(), b.columns()
    for name in ca:
        # Float columns use NaN for "none" (e.g. `predicted_ms`): equal NaNs are equal here.
        nan_ok = ca[name].dtype.kind == "f"
        if not np.array_equal(ca[name], cb[name], equal_nan=nan_ok):
            raise AssertionError(f"same seed, different per-request column `{name}`")
    return a
