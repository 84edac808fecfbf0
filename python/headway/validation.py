"""Fidelity against real drives: replay a trace measured on a real drive and score the model.

DiskSim 4.0's validation traces ship with headway (``traces()`` names them). Each was run on
the real drive one request at a time, with every request's access time measured;
:func:`validate` replays it the same way and returns DiskSim's *demerit* (the RMS horizontal
distance between the measured and simulated access-time CDFs) with the per-request pairs.

>>> import headway.validation as hv
>>> v = hv.validate("st41601n")
>>> v.requests, round(v.demerit_ms, 3) < 0.1
(9999, True)
>>> v.pairs[["measured_ms", "simulated_ms"]].shape
(9999, 2)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import pandas as pd

from headway import _headway
from headway.result import _column


def traces() -> List[str]:
    """Names of the validation traces shipped with headway (each named after its drive).

    >>> import headway.validation as hv
    >>> "hp_c2247a" in hv.traces()
    True
    """
    return list(_headway.validation_traces())


@dataclass
class Validation:
    """One validation run.

    * ``drive``, ``requests``; measured and simulated mean and standard deviation (ms);
    * ``demerit_ms`` and ``demerit_fraction`` (of the measured mean);
    * ``disksim_formula_demerit_ms``: the demerit as DiskSim computes its published figures
      (its binned, interpolated CDFs), the one to set beside ``disksim_demerit_ms``;
    * ``disksim_demerit_ms``: DiskSim 4.0's published demerit for the drive when it is one of
      the eleven catalog drives DiskSim validated (its own trace of the drive), else None;
    * ``warnings``: settings of the drive's description that headway does not model;
    * ``pairs``: a DataFrame in trace order: ``index``, ``measured_ms``, ``simulated_ms``,
      then the simulator's record of each request (``op``, ``lbn``, ``sectors``,
      ``cache_hit``, the phases in ns, ...), to find which requests the model gets wrong.
    """

    drive: str
    requests: int
    measured_mean_ms: float
    measured_sd_ms: float
    simulated_mean_ms: float
    simulated_sd_ms: float
    demerit_ms: float
    demerit_fraction: float
    disksim_formula_demerit_ms: float
    disksim_demerit_ms: Optional[float]
    warnings: List[str] = field(default_factory=list)
    pairs: pd.DataFrame = field(default=None, repr=False)

    def report(self) -> Dict[str, Any]:
        """The figures without the per-request table (what ``headway validate --json`` writes)."""
        return {k: v for k, v in self.__dict__.items() if k != "pairs"}

    def plot(self, path: Union[str, Path]) -> Path:
        """Write the measured and simulated access-time CDFs as a PNG.

        >>> import headway.validation as hv, tempfile, os
        >>> with tempfile.TemporaryDirectory() as d:
        ...     hv.validate("st41601n").plot(os.path.join(d, "cdf.png")).stat().st_size > 0
        True
        """
        return plot_cdfs(path, self)


def validate(trace: Union[str, Path], drive: Optional[Union[str, Path]] = None) -> Validation:
    """Replay a validate-format ``trace`` in validate mode on ``drive``.

    ``trace`` is a shipped trace's name (see :func:`traces`) or a file of lines
    ``R|W Hit|Miss blkno bcount access_us delay_us``. ``drive`` is a catalog name or a drive
    file (``.parv``, ``.diskspecs``, ``.toml``); by default the shipped trace's drive, or the
    trace file's stem. Bad input raises a :class:`headway.HeadwayError` naming the file,
    line or drive.

    >>> import headway.validation as hv
    >>> v = hv.validate("atlas10k")
    >>> v.disksim_formula_demerit_ms <= v.disksim_demerit_ms
    True
    >>> int(v.pairs.cache_hit.sum()) > 0
    True
    """
    report_json, measured, simulated, raw = _headway.validate(str(trace), None if drive is None else str(drive))
    r = json.loads(report_json)
    pairs = pd.DataFrame({"index": range(len(measured)), "measured_ms": measured, "simulated_ms": simulated})
    for name, (dtype, buf) in raw.items():
        pairs[name] = _column(dtype, buf)
    return Validation(
        drive=r["drive"],
        requests=r["requests"],
        measured_mean_ms=r["measured_mean_ms"],
        measured_sd_ms=r["measured_sd_ms"],
        simulated_mean_ms=r["simulated_mean_ms"],
        simulated_sd_ms=r["simulated_sd_ms"],
        demerit_ms=r["demerit_ms"],
        demerit_fraction=r["demerit_fraction"],
        disksim_formula_demerit_ms=r["disksim_formula_demerit_ms"],
        disksim_demerit_ms=r.get("disksim_demerit_ms"),
        warnings=list(r.get("warnings") or []),
        pairs=pairs,
    )


def validate_all(names: Optional[Sequence[str]] = None) -> pd.DataFrame:
    """The fidelity table: one row per shipped trace (or per name in ``names``) with n, the
    measured and simulated mean/sd, headway's demerit and DiskSim's.

    >>> import headway.validation as hv
    >>> t = hv.validate_all(["st41601n"])
    >>> list(t.columns)[:3]
    ['drive', 'requests', 'measured_mean_ms']
    """
    rows = [validate(n).report() for n in (names if names is not None else traces())]
    return pd.DataFrame(rows)


def plot_cdfs(path: Union[str, Path], v: Validation) -> Path:
    """The measured and simulated access-time CDFs of ``v`` as a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(6, 4))
    for col, label in (("measured_ms", "measured (real drive)"), ("simulated_ms", "headway")):
        x = np.sort(v.pairs[col].to_numpy())
        ax.step(x, np.arange(1, len(x) + 1) / len(x), where="post", label=label)
    ax.set_xlabel("access time (ms)")
    ax.set_ylabel("fraction of requests")
    ax.set_title(f"{v.drive}: demerit {v.demerit_ms:.3f} ms")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    from headway._write import replacing

    path = Path(path)
    with replacing(path) as tmp:
        fig.savefig(tmp, dpi=120)
    plt.close(fig)
    return path
