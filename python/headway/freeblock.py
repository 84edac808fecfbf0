"""Freeblock scheduling (Lumb, Schindler, Ganger, FAST 2002): the paper's evaluation.

:func:`reproduce` runs it on the Atlas 10K (the OLTP foreground: MPL 10, 30 ms think time,
2:1 reads, exponential sizes in 4 KiB units; a full-disk scan in the background) and returns
the tables as pandas DataFrames:

* ``sweep``: foreground and free bandwidth over the freeblock seek conservatism ``c_fb``
  for SSTF, SPTF and SPTF-SW(40%), each point with its paired run without free reads;
* ``imperfect_sweep``: external SPTF over ``c_fb`` on the drive with imperfections (seek
  jitter, spindle drift, recalibrations), planned with the oracle (``sptf``) and with the
  calibrated predictor (``sptf-calibrated``);
* ``firmware``: external versus firmware versus firmware with one request per track: free
  bandwidth over ``c_fb`` (the firmware variants plan inside the drive's queue, whose own
  SPTF orders every request);
* ``bus``: the headline's runs on the DiskSim parameters' bus (``validated``) and behind the
  paper's interface (``paper``: Ultra2 Wide SCSI, 80 MB/s);
* ``queue``: the foreground schedulers against the drive's own SPTF over queue depths;
* ``prediction_pdf`` and ``prediction``: the PDFs of prediction error (measured minus
  predicted completion time, completion to completion) for small and large requests, on
  a drive with imperfections, and for the calibrated predictor (``small-calibrated``), and
  their summary;
* ``headline``: at the chosen ``c_fb``, the free bandwidth, foreground response-time
  increase and share of reads half a rotation late with the calibrated predictor (what a
  host can have: ``free_bandwidth_mb_s_calibrated``, ``fg_response_increase_calibrated``,
  ``mispredicted_fraction_calibrated``) and with the oracle as the upper bound beside it
  (``free_bandwidth_mb_s``, ``fg_response_increase``, ...), potential free bandwidth, the
  share of the drive's media bandwidth (``free_fraction_of_media_bandwidth``: the paper's
  "15% of potential media bandwidth") and scans per day.

>>> import headway.freeblock as fb
>>> r = fb.reproduce(quick=True, requests=300, seeds=1, progress=False)
>>> sorted(r.sweep.foreground.unique())
['sptf', 'sptf-sw40', 'sstf']
>>> bool(r.headline["free_bandwidth_mb_s"] > 0)
True
>>> sorted(r.imperfect_sweep.foreground.unique())
['sptf', 'sptf-calibrated']

How it is modelled, the team's choices and the paper's numbers beside ours:
``docs/freeblock.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

import pandas as pd

from headway._claims import INF, Claim, claim
from headway._reproduction import Figures, plot_ci, write_reproduction
from headway._seeds import Seeds, plan_for, reproduce_seeds

__all__ = ["Reproduction", "reproduce"]

#: The tables, as the core names them.
TABLES = ("sweep", "queue", "firmware", "bus", "prediction_pdf", "prediction", "imperfect_sweep")
#: Numeric columns that place a row rather than measure it (matched across seeds); a
#: time series' sample times are not among them: its k-th samples are matched.
COORDINATES = ("c_fb_ms", "sector_transfer_ms", "queue_depth", "error_ms")


@dataclass
class Reproduction:
    """The evaluation's tables (see the module's docstring)."""

    sweep: pd.DataFrame
    queue: pd.DataFrame
    firmware: pd.DataFrame
    bus: pd.DataFrame
    prediction_pdf: pd.DataFrame
    prediction: pd.DataFrame
    headline: Dict[str, Any]
    options: Dict[str, Any] = field(default_factory=dict)
    imperfect_sweep: pd.DataFrame = field(default_factory=pd.DataFrame)

    def write(self, out: Union[str, Path], plots: bool = True) -> List[Path]:
        """Write ``sweep.csv``, ``imperfect_sweep.csv``, ``firmware.csv``, ``bus.csv``, ``queue.csv``, ``prediction_pdf.csv``, ``prediction.csv``,
        ``headline.json`` and (``plots=True``) the PNG
        figures into ``out``; return the paths written."""
        return write_reproduction(
            out,
            {name: getattr(self, name) for name in ("sweep", "imperfect_sweep", "firmware", "bus", "queue", "prediction_pdf",
                                                "prediction")},
            self.headline,
            self.options,
            self.plot if plots else None,
            claims=claims(self.headline),
        )

    def plot(self, out: Union[str, Path]) -> List[Path]:
        """The paper's figures: foreground and free bandwidth against ``c_fb`` (its
        conservatism figure) and mean response time against queue depth (its foreground
        validation figure)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out = Path(out)
        reduced = "\n(--quick: reduced sizes, not the paper's)" if self.options.get("quick") else ""

        figures = Figures(out)
        save = figures.save

        s = self.sweep
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        for fg, rows in s.groupby("foreground", sort=False):
            line = plot_ci(axes[0], rows, "c_fb_ms", "fg_bandwidth_mb_s", marker="o", label=fg).lines[0]
            axes[0].axhline(rows.paired_fg_bandwidth_mb_s.iloc[0], linestyle=":", linewidth=1.0,
                            color=line.get_color())
            plot_ci(axes[1], rows, "c_fb_ms", "free_bandwidth_mb_s", marker="o", label=fg)
        axes[0].set_xlabel("freeblock seek conservatism c_fb (ms)")
        axes[0].set_ylabel("foreground bandwidth (MB/s)")
        axes[0].set_title("Foreground (dotted: without free reads)")
        axes[1].set_xlabel("freeblock seek conservatism c_fb (ms)")
        axes[1].set_ylabel("free bandwidth (MB/s)")
        axes[1].set_title("Free bandwidth to the full-disk scan")
        figures.mark_paper(axes[1], 3.1, "over 3.1 MB/s (SPTF)")
        for ax in axes:
            # Conservatism and bandwidth are never negative: no axis below 0.
            ax.set_xlim(left=0)
            ax.set_ylim(bottom=0)
            ax.legend()
            ax.grid(alpha=0.3)
        title = "Freeblock on the Atlas 10K: bandwidth against seek conservatism" + reduced
        fig.suptitle(title)
        save(fig, "conservatism.png", title)

        figures.lines(self.imperfect_sweep, "foreground", "c_fb_ms", "free_bandwidth_mb_s",
                      xlabel="freeblock seek conservatism c_fb (ms)", ylabel="free bandwidth (MB/s)",
                      name="conservatism_imperfect.png",
                      title="SPTF on the drive with imperfections: oracle vs calibrated predictor" + reduced,
                      style=lambda v: {"marker": "o"}, from_zero=True)

        styles = {"firmware": "-", "firmware-1-per-track": "--"}
        figures.lines(self.firmware, "variant", "c_fb_ms", "free_bandwidth_mb_s",
                      xlabel="freeblock seek conservatism c_fb (ms)", ylabel="free bandwidth (MB/s)",
                      name="firmware.png",
                      title="Free bandwidth: external scheduler vs inside the firmware" + reduced,
                      style=lambda v: {"marker": "o", "linestyle": styles.get(v, ":")}, from_zero=True)
        figures.lines(self.queue, "scheduler", "queue_depth", "mean_response_ms",
                      xlabel="requests in the system", ylabel="mean response time (ms)",
                      name="foreground.png",
                      title="Foreground schedulers (two at the drive) vs the firmware's SPTF" + reduced,
                      from_zero=True)
        figures.lines(self.prediction_pdf, "case", "error_ms", "fraction",
                      xlabel="measured - predicted completion time (ms)", ylabel="fraction of requests",
                      name="prediction_pdf.png",
                      title="PDFs of prediction error (two commands at the drive)" + reduced,
                      style=lambda v: {"drawstyle": "steps-mid"}, ylog=True, figsize=(7, 4))
        return figures.paths


def reproduce(
    quick: bool = False,
    seed: Optional[int] = None,
    requests: Optional[int] = None,
    progress: Union[bool, Callable[[str], Any]] = True,
    seeds: Union[int, Seeds, None] = None,
) -> Reproduction:
    """Run the freeblock paper's evaluation and return its tables.

    ``quick=True`` runs the reduced sizes (3,000 foreground requests per run, four values of
    ``c_fb``, four queue depths: seconds); the full run uses 20,000 requests, eight values
    of ``c_fb`` and eight depths. ``requests`` overrides the foreground requests per run.
    ``progress`` is ``True`` (a status line on stderr), ``False``, or a callable given each
    step's name. Every point runs under ``seeds`` seeds (a count, default 5 and 2 with
    ``quick``, or a :class:`headway.Seeds` plan) from the base ``seed`` (default 1).
    """
    frames, headline, used = reproduce_seeds(
        "reproduce_freeblock", dict(quick=quick, requests=requests), plan_for(quick, seed, seeds), TABLES,
        COORDINATES, progress,
    )
    return Reproduction(headline=headline, options={"quick": quick, **used}, **frames)


WHY_DRIVE = "docs/freeblock.md#why-free-bandwidth"
WHY_CALIBRATED = "docs/freeblock.md#why-calibrated"


def claims(h: Dict[str, Any]) -> List[Claim]:
    """The headline against the paper (SPTF at the headline's ``c_fb``), a row per claim
    (see :mod:`headway._claims`)."""
    fw = h.get("firmware_free_bandwidth_mb_s")
    share = h.get("calibrated_fraction_of_oracle")
    return [
        claim("free bandwidth, calibrated predictor (MB/s)", f"{h['free_bandwidth_mb_s_calibrated']:.2f}", "> 3.1",
              h["free_bandwidth_mb_s_calibrated"], yes=(3.1, INF), partly=(0.0, INF), why=WHY_DRIVE),
        claim("foreground response-time change, calibrated (+: slower)",
              f"{h['fg_response_increase_calibrated']:+.2%}", "< +2%", h["fg_response_increase_calibrated"],
              yes=(-INF, 0.02), why=WHY_CALIBRATED),
        claim("calibrated free bandwidth / the oracle's", "-" if share is None else f"{share:.0%}", "",
              None),
        claim("reads half a rotation late, calibrated", f"{h['mispredicted_fraction_calibrated']:.1%}", "", None),
        claim("free bandwidth, oracle: upper bound (MB/s)", f"{h['free_bandwidth_mb_s']:.2f}", "> 3.1", h["free_bandwidth_mb_s"],
              yes=(3.1, INF), partly=(0.0, INF), why=WHY_DRIVE),
        claim("share of the drive's media bandwidth", f"{h['free_fraction_of_media_bandwidth']:.1%}", "15%",
              h["free_fraction_of_media_bandwidth"], yes=(0.10, 0.20), partly=(0.0, INF), why=WHY_DRIVE),
        claim("share of the potential free bandwidth", f"{h['free_fraction_of_potential']:.1%}", "", None),
        claim("foreground response-time change, oracle (+: slower)", f"{h['fg_response_increase']:+.2%}", "< +2%",
              h["fg_response_increase"], yes=(-INF, 0.02), why=WHY_DRIVE),
        claim("full scans per day", f"{h['scans_per_day']:.1f}", "", None),
        claim("firmware variant free bandwidth (MB/s)", "not built" if fw is None else f"{fw:.2f}",
              "above external", fw, yes=(h["free_bandwidth_mb_s"], INF), why=WHY_DRIVE),
    ]
