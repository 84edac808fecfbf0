"""A sweep's metric against one axis, one line per value of another, with error bars."""

from __future__ import annotations

from typing import Any, Optional


def plot(table, metric: str, x: str, line: Optional[str] = None, *, confidence: float = 0.95, ax: Any = None):
    """Draw ``metric`` (mean over the runs at each point, error bars at ``confidence``)
    against the setting ``x``, one line per value of the setting ``line``. ``table`` is a
    sweep's runs table; settings not named are averaged over. Returns the matplotlib Axes.

    >>> import headway, tempfile
    >>> spec = {"base": {"drive": {"name": "elite3"}, "workload": {"requests": 100}},
    ...         "grid": {"host.scheduler": ["fcfs", "sstf"], "drive.queue_depth": [1, 2]}, "seeds": 2}
    >>> t = headway.sweep(spec, out=tempfile.mkdtemp(), workers=1, progress=False)
    >>> ax = headway.sweeps.plot(t, "mean_response_ms", x="drive.queue_depth", line="host.scheduler")
    >>> len(ax.get_lines()) >= 2
    True
    """
    import numpy as np
    from scipy import stats

    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    for col in [metric, x] + ([line] if line else []):
        if col not in table.columns:
            raise KeyError(f"no column `{col}` in the sweep table; columns: {', '.join(table.columns)}")
    ok = table[table["status"] == "ok"]
    # A metric that is never negative (a time, a count) gets no bar below zero: with few
    # seeds Student's t makes intervals wide, and a negative response time is no outcome.
    floor = 0.0 if (ok[metric].astype(float) >= 0).all() else -np.inf
    groups = ok.groupby(line, sort=True) if line else [(None, ok)]
    seeds = set()
    for value, group in groups:
        xs, means, below, above = [], [], [], []
        for xv, at in group.groupby(x, sort=True):
            v = at[metric].astype(float).to_numpy()
            n = len(v)
            seeds.add(n)
            half = v.std(ddof=1) / np.sqrt(n) * stats.t.ppf(0.5 + confidence / 2, n - 1) if n > 1 else 0.0
            xs.append(xv)
            means.append(v.mean())
            below.append(min(half, v.mean() - floor))
            above.append(half)
        label = f"{line} = {value}" if line else metric
        ax.errorbar(xs, means, yerr=[below, above], marker="o", capsize=3, label=label)
    values = ok[x]
    if values.dtype.kind in "iu" or (values.dtype.kind == "f" and (values == values.round()).all()):
        # Whole-numbered settings (queue depths, counts): ticks at the values swept.
        ax.set_xticks(sorted(values.unique()))
    ax.set_xlabel(x)
    ax.set_ylabel(metric)
    runs = "/".join(str(n) for n in sorted(seeds))
    ax.set_title(f"mean over {runs} runs per point; bars: {confidence:.0%} interval (Student's t)", fontsize=9)
    if line:
        ax.legend()
    return ax
