"""Cello (Shenoy and Vin): two-level disk scheduling for mixed application classes.

:func:`reproduce` runs the paper's evaluation on the Seagate Elite 3 (video clients as soft
real time, text clients as interactive and throughput-intensive best effort) under Cello and
the baselines (SCAN, EDF, SCAN-EDF, D-SCAN, static time partitioning) and returns the tables
as pandas DataFrames:

>>> import headway.cello as cello
>>> r = cello.reproduce(quick=True, duration_s=20, seeds=1, progress=False)
>>> sorted(r.mixes.policy.unique())[:3]
['bfq', 'cello', 'cello-4:1']
>>> bool(r.headline["cello_video_miss_fraction"] <= r.headline["scan_video_miss_fraction"] + 0.01)
True

How the system is modelled and every choice the paper left open: ``docs/cello.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import pandas as pd

from headway._claims import INF, Claim, claim, holds
from headway._reproduction import Figures, plot_ci, write_reproduction
from headway._seeds import Seeds, plan_for, reproduce_seeds
from headway._shared import shared_folder

__all__ = ["Reproduction", "reproduce", "frame_trace_files", "TRACE_FILES"]

#: The MPEG-4 frame-size traces standing in for the paper's four clips (Frasier,
#: Newscast, Flintstones, Olympics), in that order; each is rescaled to its clip's bit rate.
TRACE_FILES = ("Verbose_Simpsons.dat", "Verbose_ARDTalk.dat", "Verbose_SouthPark.dat",
               "Verbose_StarWarsIV.dat")

#: Policies of the paper (solid lines in the figures); the rest are added baselines.
PAPER_POLICIES = ("cello", "scan", "look", "scan-edf", "dscan")

#: The tables, as the core names them.
TABLES = ("mixes", "intervals", "ledger")
#: Numeric columns that place a row rather than measure it (matched across seeds); a
#: time series' sample times are not among them: its k-th samples are matched.
COORDINATES = ("video_clients", "text_clients", "throughput_clients", "interval")


def frame_trace_files(folder: Union[str, Path, None] = None) -> Optional[List[Path]]:
    """The four trace files in ``folder`` (default: the project's reference data,
    ``$HEADWAY_SHARED/reference/traces/video`` or ``../shared/reference/traces/video``), or
    ``None`` when they are not all there."""
    if folder is None:
        root = shared_folder()
        if root is None:
            return None
        folder = root / "reference" / "traces" / "video"
    files = [Path(folder) / f for f in TRACE_FILES]
    return files if all(f.is_file() for f in files) else None


@dataclass
class Reproduction:
    """The evaluation's tables.

    * ``mixes``: one row per run of a client mix under a policy (``experiment`` says which
      figure it belongs to): utilisation, text response (mean, p99), video misses;
    * ``intervals``: measured disk time and bytes per class per 1 s interval (Figs. 8-9);
    * ``ledger``: Cello's own accounts per interval (time charged U_i, reallocated X_i);
    * ``headline``: the paper's claims as numbers.
    """

    mixes: pd.DataFrame
    intervals: pd.DataFrame
    ledger: pd.DataFrame
    headline: Dict[str, Any]
    options: Dict[str, Any] = field(default_factory=dict)

    def write(self, out: Union[str, Path], plots: bool = True) -> List[Path]:
        """Write the CSVs, ``headline.json`` and (``plots=True``) PNG figures into ``out``."""
        return write_reproduction(
            out,
            {name: getattr(self, name) for name in ("mixes", "intervals", "ledger")},
            self.headline,
            self.options,
            self.plot if plots else None,
            claims=claims(self.headline),
        )

    def plot(self, out: Union[str, Path]) -> List[Path]:
        """The paper's figures 4-11 as PNGs, with mClock-free baselines dashed."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out = Path(out)
        reduced = " (--quick)" if self.options.get("quick") else ""

        figures = Figures(out, dpi=110, suptitle=True, title_suffix=reduced)
        save = figures.save

        m = self.mixes

        def lines(ax, rows, x, y, scale=1.0):
            for pol, g in rows.groupby("policy", sort=False):
                g = g.sort_values(x)
                plot_ci(ax, g, x, y, "-o" if pol in PAPER_POLICIES else "--x", scale=scale, label=pol)

        u = m[m.experiment == "utilisation"]
        fig, ax = plt.subplots(figsize=(6, 4))
        for t, g in u.groupby("text_clients"):
            plot_ci(ax, g, "video_clients", "utilisation", "-o", scale=100, label=f"{t} text")
        ax.set_xlabel("video clients")
        ax.set_ylabel("disk busy (%)")
        ax.legend(fontsize=7)
        save(fig, "fig4_utilisation.png", "Fig. 4: utilisation under SCAN")

        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        lines(axes[0], m[m.experiment == "video_load"], "video_clients", "text_mean_ms")
        axes[0].set_xlabel("video clients (6 text)")
        lines(axes[1], m[m.experiment == "text_load"], "text_clients", "text_mean_ms")
        axes[1].set_xlabel("text clients (6 video)")
        for ax in axes:
            ax.set_ylabel("mean text response (ms)")
            ax.set_yscale("log")
            ax.legend(fontsize=7)
        save(fig, "fig5_text_response.png", "Fig. 5/7: text response time")

        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        lines(axes[0], m[m.experiment == "text_load"], "text_clients", "video_miss_fraction", 100)
        # The same sweep with each client's rounds at a random phase instead of server rounds.
        for pol, g in m[m.experiment == "random_phase_text_load"].groupby("policy", sort=False):
            g = g.sort_values("text_clients")
            axes[0].plot(g.text_clients, g.video_miss_fraction * 100, ":s", label=f"{pol}, random phases")
        axes[0].set_xlabel("text clients (6 video)")
        axes[0].set_ylabel("video requests late (%)")
        axes[0].legend(fontsize=7)
        b = m[m.experiment == "interactive_vs_throughput"]
        if len(b):
            axes[1].bar(["interactive", "throughput"], [b.text_mean_ms.iloc[0], b.throughput_mean_ms.iloc[0]],
                        yerr=[b.get("text_mean_ms_ci95", b.text_mean_ms * 0).iloc[0],
                              b.get("throughput_mean_ms_ci95", b.throughput_mean_ms * 0).iloc[0]], capsize=3)
            axes[1].set_ylabel("mean response (ms)")
        save(fig, "fig6_video_and_be_classes.png", "Fig. 6: video violations; interactive vs throughput")

        iv = self.intervals
        panels = [("proportional", "cello"), ("reallocation", "cello"), ("reallocation", "scan")]
        fig, axes = plt.subplots(1, 3, figsize=(15, 4))
        for ax, (exp, pol) in zip(axes, panels):
            g = iv[(iv.experiment == exp) & (iv.policy.str.startswith(pol))]
            # An interval where a class had nothing is 0%, not a gap to draw across.
            wide = g.pivot_table(index="interval", columns="class", values="busy_ms", fill_value=0.0)
            half = g.pivot_table(index="interval", columns="class", values="busy_ms_ci95", fill_value=0.0) \
                if "busy_ms_ci95" in g else wide * 0
            for cls in wide.columns:
                (line,) = ax.plot(wide.index, wide[cls] / 10.0, label=cls)
                ax.fill_between(wide.index, (wide[cls] - half[cls]) / 10.0, (wide[cls] + half[cls]) / 10.0,
                                color=line.get_color(), alpha=0.2, linewidth=0)
            ax.set_title(f"{exp}: {pol}")
            ax.set_xlabel("interval (1 s)")
            ax.set_ylabel("disk time (%)")
            ax.legend(fontsize=7)
        save(fig, "fig8_allocation.png", "Fig. 8: time per class per interval")

        fig, axes = plt.subplots(2, 2, figsize=(11, 7))
        for col, alloc in enumerate(("time", "bytes")):
            g = iv[iv.experiment == f"{alloc}_allocation"]
            for cls, rows in g.groupby("class"):
                plot_ci(axes[0][col], rows, "interval", "busy_ms", scale=0.1, label=cls)
                plot_ci(axes[1][col], rows, "interval", "bytes", scale=1e-6, label=cls)
            axes[0][col].set_title(f"{alloc} allocation")
            axes[0][col].set_ylabel("disk time (%)")
            axes[1][col].set_ylabel("MB per interval")
            axes[1][col].set_xlabel("interval (1 s)")
            axes[0][col].legend(fontsize=7)
        save(fig, "fig9_time_vs_bytes.png", "Fig. 9: time vs byte allocation")

        s = m[m.experiment == "shares"]
        fig, ax = plt.subplots(figsize=(7, 4))
        pols = list(dict.fromkeys(s.policy))
        loads = sorted(s.video_clients.unique())
        w = 0.8 / max(1, len(pols))
        for i, pol in enumerate(pols):
            picked = [s[(s.policy == pol) & (s.video_clients == v)] for v in loads]
            vals = [p.text_mean_ms.mean() for p in picked]
            errs = [p.text_mean_ms_ci95.mean() if "text_mean_ms_ci95" in p else 0.0 for p in picked]
            ax.bar([k + i * w for k in range(len(loads))], vals, w, yerr=errs, capsize=2, label=pol)
        ax.set_xticks([k + 0.4 - w / 2 for k in range(len(loads))])
        ax.set_xticklabels([f"{v} video" for v in loads])
        ax.set_yscale("log")
        ax.set_ylabel("mean text response (ms)")
        ax.legend(fontsize=7)
        save(fig, "fig10_shares.png", "Fig. 10: 1:1, 4:1 and static partitioning")

        op = m[(m.experiment == "video_load") & (m.video_clients == self.options.get("video_at", 6))]
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.bar(op.policy, op.busy_s, yerr=op.get("busy_s_ci95"), capsize=3)
        ax.set_ylabel("disk busy time (s), same requests")
        ax.tick_params(axis="x", rotation=30)
        save(fig, "fig11_busy.png", "Fig. 11: disk busy time at the operating point")
        return figures.paths


def reproduce(
    quick: bool = False,
    seed: Optional[int] = None,
    duration_s: Optional[float] = None,
    frame_traces: Optional[Sequence[Union[str, Path]]] = None,
    progress: Union[bool, Callable[[str], Any]] = True,
    seeds: Union[int, Seeds, None] = None,
) -> Reproduction:
    """Run Cello's evaluation.

    ``quick`` runs 120 simulated seconds per mix and fewer loads (seconds of wall time);
    ``duration_s`` overrides the simulated seconds per run; ``frame_traces`` (four MPEG-4
    frame-size trace files, see :data:`TRACE_FILES`) replace the synthetic GOP model.
    Every mix runs under ``seeds`` seeds (a count, default 5 and 2 with ``quick``, or a
    :class:`headway.Seeds` plan, e.g. ``Seeds(until_ci=0.05)``: the paper's rule, seeds
    until every headline interval is within 5% of its mean) starting at ``seed``.
    """
    frames, headline, used = reproduce_seeds(
        "reproduce_cello",
        dict(quick=quick, duration_s=duration_s,
             frame_traces=[str(p) for p in frame_traces] if frame_traces else None),
        plan_for(quick, seed, seeds),
        TABLES,
        COORDINATES,
        progress,
    )
    return Reproduction(**frames, headline=headline, options={**used, "quick": quick})


WHY_NOT = "docs/cello.md#what-did-not-reproduce-and-why-measured"


def claims(h: Dict[str, Any]) -> List[Claim]:
    """The headline against the paper, a row per claim (see :mod:`headway._claims`)."""
    return [
        claim("text response, SCAN / Cello (ratio of means)", f"{h['text_response_scan_over_cello']:.2f}x", "2.5x",
              h["text_response_scan_over_cello"], yes=(1.75, 3.25), partly=(1.0, INF), why=WHY_NOT),
        claim("Cello: fraction of video requests late", f"{h['cello_video_miss_fraction']:.4f}", "0",
              h["cello_video_miss_fraction"], yes=(0.0, 0.001)),
        claim("SCAN: fraction of video requests late", f"{h['scan_video_miss_fraction']:.4f}",
              "> 0, rising with text load", h["scan_video_miss_fraction"], yes=(1e-9, INF), why=WHY_NOT),
        claim("static partitioning / Cello, text response (ratio of means)", f"{h['static_over_cello']:.1f}x",
              "about 100x", h["static_over_cello"], yes=(50.0, 200.0), partly=(1.0, INF), why=WHY_NOT),
        claim("Cello's extra busy time over SCAN (requests' service)", f"{h['cello_busy_overhead'] * 100:+.2f}%",
              "< +2%", h["cello_busy_overhead"], yes=(-INF, 0.02), why=WHY_NOT),
        claim("Cello's device busy time over SCAN / over LOOK",
              f"{h['cello_device_busy_over_scan'] * 100:+.1f}% / {h['cello_device_busy_over_look'] * 100:+.1f}%", "",
              None),
        holds("mean response, interactive / throughput best-effort (ms)",
              f"{h['interactive_mean_ms']:.1f} / {h['throughput_mean_ms']:.1f}", "interactive lower",
              h["interactive_mean_ms"] < h["throughput_mean_ms"], why=WHY_NOT),
    ]
