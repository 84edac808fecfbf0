"""Mean and confidence interval over seeds, per grid point (Student's t: a sweep has few
seeds, where the normal approximation would make the intervals too narrow)."""

from __future__ import annotations

from typing import List

from headway.sweeps.spec import FIXED_COLUMNS, Sweep


def metric_columns(frame, sweep: Sweep) -> List[str]:
    """Numeric summary columns (not the settings or the bookkeeping)."""
    skip = set(sweep.axes) | set(FIXED_COLUMNS)
    return [c for c in frame.columns if c not in skip and frame[c].dtype.kind in "iuf"]


def summarise(frame, sweep: Sweep):
    """Per grid point: the settings, ``runs``, ``failed``, and for each metric ``M``:
    ``M_mean``, ``M_ci_low``, ``M_ci_high`` (at ``sweep.confidence``; NaN for one seed)."""
    import numpy as np
    import pandas as pd
    from scipy import stats

    metrics = metric_columns(frame, sweep)
    rows = []
    for point, group in frame.groupby("point", sort=True):
        first = group.iloc[0]
        row = {k: first[k] for k in sweep.axes}
        row["point"] = point
        ok = group[group["status"] == "ok"]
        row["runs"] = len(ok)
        row["failed"] = int((group["status"] != "ok").sum())
        n = len(ok)
        half_factor = stats.t.ppf(0.5 + sweep.confidence / 2, n - 1) if n > 1 else np.nan
        for m in metrics:
            values = ok[m].astype(float).to_numpy()
            mean = float(values.mean()) if n else np.nan
            half = float(values.std(ddof=1) / np.sqrt(n) * half_factor) if n > 1 else np.nan
            row[f"{m}_mean"] = mean
            row[f"{m}_ci_low"] = mean - half
            row[f"{m}_ci_high"] = mean + half
        rows.append(row)
    return pd.DataFrame(rows)
