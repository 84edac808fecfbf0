"""A reproduction's tables and headline over several seeds: each point's mean and the
half-width of its 95% Student-t confidence interval.

A table's rows are matched across seeds by its coordinate columns (the text columns and the
numeric ones a reproduction names, such as ``queue_length``), so a row present under some
seeds only is the mean of those (its ``n_seeds`` says how many). Every other numeric column
``X`` becomes ``X`` (the mean, so readers of a one-seed table keep working), ``X_mean`` (the
same) and ``X_ci95``; one seed, or seeds that agree, give ``X_ci95 = 0``.

>>> import pandas as pd
>>> a = pd.DataFrame({"scheduler": ["fcfs", "stf"], "q": [1, 1], "util": [0.2, 0.5]})
>>> b = pd.DataFrame({"scheduler": ["fcfs", "stf"], "q": [1, 1], "util": [0.4, 0.5]})
>>> t = aggregate_table([a, b], coordinates=("q",))
>>> list(t.columns)
['scheduler', 'q', 'util', 'util_mean', 'util_ci95', 'n_seeds']
>>> round(float(t.util_ci95[0]), 3), float(t.util_ci95[1])
(1.271, 0.0)
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Mapping, Sequence, Tuple

#: The confidence level of every interval a reproduction reports.
CONFIDENCE = 0.95

#: Suffixes of the columns and headline keys this module adds.
MEAN, CI = "_mean", "_ci95"

# Which occurrence of a coordinate tuple a row is within its seed's table (tables may repeat one).
_OCCURRENCE = "__occurrence"


def ci95_half_width(values: Sequence[float]) -> float:
    """Half-width of the 95% Student-t interval of the mean of ``values`` (0 for fewer than
    two values, or values that agree).

    >>> ci95_half_width([1.0, 2.0, 3.0])  # t(0.975, 2) * 1 / sqrt(3)
    2.484...
    """
    from scipy import stats

    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    if var <= 0.0:
        return 0.0
    return float(stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1) * math.sqrt(var / n))


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def value_columns(frame, coordinates: Iterable[str]) -> List[str]:
    """The numeric columns of ``frame`` that are measurements, not coordinates."""
    coords = set(coordinates)
    return [c for c in frame.columns if c not in coords and frame[c].dtype.kind in "iuf"]


def aggregate_table(frames: Sequence[Any], coordinates: Iterable[str] = ()):
    """One table from the same table under each seed (see the module's docstring)."""
    import numpy as np
    import pandas as pd

    frames = [f for f in frames if len(f.columns)]
    if not frames:
        return pd.DataFrame()
    values = value_columns(frames[0], coordinates)
    keys = [c for c in frames[0].columns if c not in values]
    stacked = []
    for f in frames:
        f = f.copy()
        f[_OCCURRENCE] = f.groupby(keys, sort=False, dropna=False).cumcount() if keys else range(len(f))
        stacked.append(f)
    both = pd.concat(stacked, ignore_index=True)
    by = keys + [_OCCURRENCE]
    rows = []
    for key, group in both.groupby(by, sort=False, dropna=False):
        row: Dict[str, Any] = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        for c in values:
            present = [float(v) for v in group[c] if v == v]  # NaN: not measured under that seed
            mean = sum(present) / len(present) if present else np.nan
            row[c] = mean
            row[c + MEAN] = mean
            row[c + CI] = ci95_half_width(present) if present else np.nan
        row["n_seeds"] = len(group)
        rows.append(row)
    out = pd.DataFrame(rows)
    for c in values:
        # A count stays a count when every seed agrees on it.
        if frames[0][c].dtype.kind in "iu" and (out[c] == out[c].round()).all():
            out[c] = out[c].astype("int64")
    order = keys + [name for c in values for name in (c, c + MEAN, c + CI)] + ["n_seeds"]
    return out[order]


def aggregate_headline(headlines: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
    """The headline's numeric keys as their mean over ``headlines`` (one per seed), each
    with a ``KEY_ci95`` companion (a dict of numbers gets a dict of intervals); other keys
    as the first seed has them."""
    out: Dict[str, Any] = {}
    first = headlines[0]
    for k, v in first.items():
        column = [h.get(k) for h in headlines]
        if _is_number(v) or (v is None and any(_is_number(x) for x in column)):
            present = [float(x) for x in column if _is_number(x) and x == x]
            if not present:
                out[k] = v
                continue
            mean = sum(present) / len(present)
            integral = all(isinstance(x, int) for x in column) and mean == round(mean)
            out[k] = int(round(mean)) if integral else mean
            out[k + CI] = ci95_half_width(present)
        elif isinstance(v, Mapping) and v and all(isinstance(h.get(k), Mapping) for h in headlines):
            inner = aggregate_headline([h[k] for h in headlines])
            out[k] = {i: x for i, x in inner.items() if not i.endswith(CI)}
            out[k + CI] = {i[: -len(CI)]: x for i, x in inner.items() if i.endswith(CI)}
        else:
            out[k] = v
    return out


def relative_widths(headline: Mapping[str, Any]) -> List[Tuple[str, float]]:
    """``(key, half-width / |mean|)`` for every numeric key of an aggregated headline (0 when
    the interval is 0, infinite when only the mean is 0)."""
    found: List[Tuple[str, float]] = []
    for k, ci in headline.items():
        if not k.endswith(CI):
            continue
        mean = headline.get(k[: -len(CI)])
        if isinstance(ci, Mapping) and isinstance(mean, Mapping):
            found += [(f"{k[: -len(CI)]}.{i}", w) for i, w in relative_widths(
                {**mean, **{f"{j}{CI}": c for j, c in ci.items()}})]
        elif _is_number(ci) and _is_number(mean):
            found.append((k[: -len(CI)], 0.0 if ci == 0 else (ci / abs(mean) if mean else math.inf)))
    return found
