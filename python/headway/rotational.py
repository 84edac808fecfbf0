"""Rotation-aware scheduling (Huang and Chiueh): extraction and the paper's evaluation.

Two entry points:

* :func:`extract` calibrates a catalog drive the way the paper calibrates a real one, by
  timing reads and writes only, and compares what it learned with the drive's own model.
* :func:`reproduce` runs the paper's evaluation on the ST41601N (FCFS, C-SCAN, STF, GSTF and
  WSTF over queue lengths; the bursty light/heavy stand-ins for its lab traces; predictor
  accuracy; the Stability experiment) and returns the tables as pandas DataFrames.

>>> import headway.rotational as rot
>>> r = rot.reproduce(queue_lengths=[1, 10], requests_per_queued=10, trace_requests=500,
...                   stability_trials=2, seeds=2, progress=False)
>>> sorted(r.utilisation.scheduler.unique())
['cscan', 'fcfs', 'gstf', 'stf', 'stf-pruned', 'wstf']
>>> bool(r.headline["stf_over_fcfs"] > 1.0)
True

How the host is modelled and every choice the paper left open: ``docs/rotational.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import pandas as pd

from headway import _headway
from headway._claims import INF, Claim, claim
from headway._reproduction import Figures, bars_ci, plot_ci, write_reproduction
from headway._seeds import Seeds, plan_for, reproduce_seeds

__all__ = ["Extraction", "Reproduction", "extract", "reproduce"]

#: The paper's schedulers, as named in ``utilisation.csv``.
PAPER_SCHEDULERS = ("fcfs", "cscan", "stf", "gstf", "wstf")

#: The tables, as the core names them.
TABLES = ("utilisation", "prediction", "traces", "stability", "large")
#: Numeric columns that place a row rather than measure it (matched across seeds); a
#: time series' sample times are not among them: its k-th samples are matched.
COORDINATES = ("queue_length", "wait_s")


@dataclass(frozen=True)
class Extraction:
    """What calibration learned about a drive, beside the truth.

    ``report`` is the printable comparison; ``data`` holds the same numbers (zones, rotation
    period, delta, and the comparison's fields) as a dict.
    """

    drive: str
    report: str
    data: Dict[str, Any]

    @property
    def comparison(self) -> Dict[str, Any]:
        return self.data["comparison"]

    def __str__(self) -> str:
        return self.report


def _imperfections_toml(imperfections: Optional[Mapping[str, Any]]) -> Optional[str]:
    if not imperfections:
        return None
    import tomli_w

    return tomli_w.dumps(dict(imperfections))


def extract(
    drive: str = "st41601n",
    imperfections: Optional[Mapping[str, Any]] = None,
    paper_min_offset: bool = True,
) -> Extraction:
    """Calibrate ``drive`` by timing alone (GeoExtraction, rotation period, MinOffset, delta,
    the LBN-distance curve) and compare the result with the drive's model.

    ``imperfections`` takes the keys of ``[drive.imperfections]`` (``seek_jitter_ms``,
    ``rotation_drift_ppm``, ``drift_period_s``, ``recal_interval_s``, ``recal_cylinders``,
    ``recal_busy_ms``) to calibrate an imperfect drive instead.

    >>> e = extract("st41601n", paper_min_offset=False)
    >>> e.comparison["wrong_track_boundaries"]
    0
    """
    text, data = _headway.extract(drive, _imperfections_toml(imperfections), paper_min_offset)
    parsed = json.loads(data)
    return Extraction(drive=parsed["drive"], report=text, data=parsed)


@dataclass(frozen=True)
class DeviceExtraction:
    """What timing a block device or file revealed: ``report`` (text), ``drive_toml`` (a
    drive file in headway's TOML form: simulate it with ``[drive] file = ...``; the
    ``calibrated`` predictor calibrates that simulation) and ``data`` (period, zones,
    commands, wall time)."""

    device: str
    report: str
    drive_toml: str
    data: Dict[str, Any]


def extract_device(path: Union[str, Path], writable: bool = False,
                   jitter_us: Optional[float] = None) -> DeviceExtraction:
    """Calibrate the block device or file at ``path`` by timing O_DIRECT reads (and writes,
    which put zeros on it, only when ``writable``); nothing else may use it meanwhile.

    ``jitter_us``: the command round trip jitters by about this much (a disk reached through
    FUSE and NBD): lags are bisected to that resolution rather than a nanosecond, track
    boundaries are read from the writes' angles and every angle that looks out of place is
    timed again, and the delta search lets a tenth of its trials miss. When it is not given,
    the jitter is measured first (the spread of 200 back-to-back commands to one sector) and
    ``data["measured_round_trip_spread_us"]`` reports it. A value that is not positive raises
    a ``ValueError`` naming ``jitter_us``.

    A path that cannot be opened for direct I/O, or a device under 512 KiB, raises an
    :class:`OSError` naming the path and the reason:

    >>> extract_device("/nonexistent/disk")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    FileNotFoundError: /nonexistent/disk: cannot open with O_DIRECT: ...
    """
    text, drive_toml, data = _headway.extract_device(str(path), writable, jitter_us)
    return DeviceExtraction(device=str(path), report=text, drive_toml=drive_toml,
                            data=json.loads(data))


@dataclass
class Reproduction:
    """The evaluation's tables.

    * ``utilisation``: one row per (scheduler, queue_length) of the synthetic sweep
      (``utilisation`` is media transfer time over elapsed time, the paper's measure);
    * ``prediction``: one row per (predictor, drive) with ``mispredicted_fraction``;
    * ``traces``: the light and heavy stand-in days per scheduler;
    * ``stability``: correct predictions against time since the last reference point;
    * ``large``: the synthetic sweep's schedulers with 256 KB requests (the paper's
      large-request check), the same columns as ``utilisation``;
    * ``headline``: the paper's claims as ratios.
    """

    utilisation: pd.DataFrame
    prediction: pd.DataFrame
    traces: pd.DataFrame
    stability: pd.DataFrame
    large: pd.DataFrame
    headline: Dict[str, Any]
    options: Dict[str, Any] = field(default_factory=dict)

    def write(self, out: Union[str, Path], plots: bool = True) -> List[Path]:
        """Write the CSVs, ``headline.json`` and (``plots=True``) the PNG figures into
        ``out``; return the paths written."""
        return write_reproduction(
            out,
            {name: getattr(self, name) for name in TABLES},
            self.headline,
            self.options,
            self.plot if plots else None,
            claims=claims(self.headline),
        )

    def plot(self, out: Union[str, Path]) -> List[Path]:
        """The paper's figures as PNGs: Figure 10 (utilisation and maximum response time
        against queue length), Figure 9 (the stand-in days), and the Stability curve."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out = Path(out)
        # A --quick run has fewer queue lengths and requests than the paper: say so on the figure.
        reduced = "\n(--quick: reduced sizes, not the paper's)" if self.options.get("quick") else ""

        figures = Figures(out)
        save = figures.save

        u = self.utilisation
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        for sched, rows in u.groupby("scheduler", sort=False):
            style = "--" if sched not in PAPER_SCHEDULERS else "-"
            plot_ci(axes[0], rows, "queue_length", "utilisation", style, marker="o", label=sched)
            plot_ci(axes[1], rows, "queue_length", "max_response_ms", style, scale=1e-3, marker="o", label=sched)
        axes[0].set_ylabel("disk utilisation (media transfer / elapsed)")
        axes[1].set_ylabel("maximum response time (s)")
        axes[1].set_yscale("log")
        for ax in axes:
            ax.set_xscale("log")
            ax.set_xlabel("queue length")
            ax.grid(alpha=0.3)
            ax.legend()
        title = f"Synthetic workload on the ST41601N (the paper's Figure 10){reduced}"
        fig.suptitle(title)
        save(fig, "figure10_synthetic.png", title)

        t = self.traces
        fig, axes = plt.subplots(1, 3, figsize=(13, 4))
        for ax, col, label in (
            (axes[0], "utilisation", "utilisation (media transfer / busy)"),
            (axes[1], "mean_response_ms", "mean response (ms)"),
            (axes[2], "max_response_ms", "maximum response (ms)"),
        ):
            bars_ci(ax, t, "workload", "scheduler", col, order=PAPER_SCHEDULERS, rot=0)
            ax.set_ylabel(label)
            ax.grid(alpha=0.3, axis="y")
        title = f"Bursty stand-ins for the light and heavy lab days (the paper's Figure 9){reduced}"
        fig.suptitle(title)
        save(fig, "figure9_traces.png", title)

        s = self.stability
        if len(s):
            fig, ax = plt.subplots(figsize=(6, 4))
            s = s.assign(right=s.correct / s.trials, right_ci95=s.get("correct_ci95", 0.0) / s.trials)
            plot_ci(ax, s, "wait_s", "right", marker="o")
            ax.set_xlabel("time since the reference point (s)")
            ax.set_ylabel("fraction of predictions right")
            ax.set_ylim(-0.05, 1.05)
            ax.grid(alpha=0.3)
            title = f"Stability on the imperfect drive (the paper's Figure 3){reduced}"
            ax.set_title(title)
            save(fig, "stability.png", title)
        return figures.paths


def reproduce(
    quick: bool = False,
    seed: Optional[int] = None,
    drive: Optional[str] = None,
    queue_lengths: Optional[Sequence[int]] = None,
    requests_per_queued: Optional[int] = None,
    trace_requests: Optional[int] = None,
    progress: Union[bool, Callable[[str], Any]] = True,
    seeds: Union[int, Seeds, None] = None,
    stability_trials: Optional[int] = None,
) -> Reproduction:
    """Run the rotational paper's evaluation and return its tables.

    ``quick=True`` runs the reduced sizes (queue lengths 1, 10, 50, 200; 20 x Q requests per
    run; 10,000 requests per stand-in day: seconds). The full run uses queue lengths up to
    1000 with 100 x Q requests and the lab days' full request counts. ``queue_lengths``,
    ``requests_per_queued`` and ``trace_requests`` override single sizes;
    ``stability_trials`` the trials per point of the Stability experiment (default 30).
    ``progress`` is ``True`` (a status line on stderr), ``False``, or a callable given each
    step's name (each seed's, with several seeds).

    Every point runs under ``seeds`` seeds (a count, default 5 and 2 with ``quick``, or a
    :class:`headway.Seeds` plan: ``until_ci``, Dask, workers) starting at ``seed``; the
    tables hold each point's mean and 95% interval (see :mod:`headway._intervals`).
    """
    frames, headline, used = reproduce_seeds(
        "reproduce_rotational",
        dict(
            quick=quick,
            drive=drive,
            queue_lengths=list(queue_lengths) if queue_lengths is not None else None,
            requests_per_queued=requests_per_queued,
            trace_requests=trace_requests,
            stability_trials=stability_trials,
        ),
        plan_for(quick, seed, seeds),
        TABLES,
        COORDINATES,
        progress,
    )
    # The options the core actually used (its defaults filled in), not a copy of them here.
    return Reproduction(**frames, headline=headline, options={"quick": quick, **used})


WHY = "docs/rotational.md#reproduction"


def claims(h: Dict[str, Any]) -> List[Claim]:
    """The headline against the paper, a row per claim (see :mod:`headway._claims`).
    Utilisation is media transfer over elapsed time; ratios are of the named schedulers."""
    q = h["queue_length"]
    return [
        claim(f"STF / FCFS utilisation at STF's peak (Q={h['stf_peak_queue_length']})",
              f"{h['stf_over_fcfs_at_peak']:.2f}x", "more than 2x", h["stf_over_fcfs_at_peak"], yes=(2.0, INF),
              partly=(1.0, INF), why=WHY),
        claim("STF / C-SCAN utilisation at STF's peak", f"{h['stf_over_cscan_at_peak']:.2f}x", "about 2x",
              h["stf_over_cscan_at_peak"], yes=(1.7, 2.5), partly=(1.1, INF), why=WHY),
        claim(f"pruned STF / FCFS utilisation at Q={q}", f"{h['pruned_stf_over_fcfs']:.2f}x", "more than 2x",
              h["pruned_stf_over_fcfs"], yes=(2.0, INF), partly=(1.0, INF), why=WHY),
        claim(f"GSTF / STF maximum response at Q={q}", f"{h['gstf_max_over_stf_max']:.2f}x", "well below 1x",
              h["gstf_max_over_stf_max"], yes=(0.0, 0.6), why=WHY),
        claim(f"WSTF / STF maximum response at Q={q}", f"{h['wstf_max_over_stf_max']:.2f}x", "well below 1x",
              h["wstf_max_over_stf_max"], yes=(0.0, 0.6), why=WHY),
        claim("GSTF / STF utilisation", f"{h['gstf_util_over_stf']:.3f}x", "about 1x (little cost)",
              h["gstf_util_over_stf"], yes=(0.9, 1.2), why=WHY),
        claim("WSTF / STF utilisation", f"{h['wstf_util_over_stf']:.3f}x", "about 1x (little cost)",
              h["wstf_util_over_stf"], yes=(0.9, 1.05), why=WHY),
        claim("calibrated predictor: commands mispredicted (nominal / imperfect drive)",
              f"{h['calibrated_mispredicted']:.1%} / {h['calibrated_mispredicted_imperfect']:.1%}", "< 10%",
              max(h["calibrated_mispredicted"], h["calibrated_mispredicted_imperfect"]), yes=(0.0, 0.1), why=WHY),
        claim("stability: all / some predictions right up to (s)",
              f"{h['stability_all_correct_s']:.1f} / {h['stability_last_correct_s']:.1f}", "", None),
    ]
