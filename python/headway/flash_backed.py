"""Flash-backed I/O on hybrid disks (Bisson and Brandt, MASCOTS 2007): the paper's evaluation.

:func:`reproduce` runs the paper model (trace-driven replay of one hybrid drive with the
measured-style access-time functions: the ``ek1000`` stand-in platter and the Ultra II CF
stand-in flash) over the HP week (when its path is given) and the synthetic desktop
stand-ins for Eng, WinPC and Mac, and the same policy on the core (the ``flash-backed``
wrapper scheduler over the drive's full model and a ``drive = "flash"`` device). Tables come
back as pandas DataFrames.

>>> import headway.flash_backed as fb
>>> r = fb.reproduce(quick=True, synthetic_requests=2000, core_requests=300, progress=False)
>>> r.options["n_seeds"], bool((r.sweep.write_latency_norm_ci95 >= 0).all())
(2, True)
>>> sorted(r.sweep.scheduler.unique())
['clook', 'fcfs', 'sstf']
>>> bool(r.headline["max_write_latency_reduction"] > 0.3)
True

Every choice the paper left open, and paper against headway result by result:
``docs/flash_backed.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

import pandas as pd

from headway._claims import INF, Claim, claim
from headway._reproduction import Figures, plot_ci, write_reproduction
from headway._seeds import Seeds, plan_for, reproduce_seeds
from headway._shared import shared_folder

__all__ = ["Reproduction", "reproduce", "default_hp_trace"]

TABLES = ("traces", "seek", "seek_time", "sweep", "speed", "energy", "look_ahead", "delay", "core")
#: Numeric columns that place a row rather than measure it (matched across seeds); a
#: time series' sample times are not among them: its k-th samples are matched.
COORDINATES = ("lo_bytes", "hi_bytes", "fqueue_mib", "factor", "timeout_s", "idle_delay_ms")


def default_hp_trace() -> Optional[Path]:
    """The HP week in the reference data (``$HEADWAY_SHARED``, or a ``shared`` folder beside
    the clone or above it; see :mod:`headway._shared`), if present, wherever headway is run
    from. headway never ships it."""
    base = shared_folder()
    p = None if base is None else base / "reference" / "traces" / "hplajw" / "ajw.1week.srt"
    return p if p is not None and p.is_file() else None


@dataclass
class Reproduction:
    """The paper's tables (one DataFrame each, see ``docs/flash_backed.md`` for columns),
    ``headline`` (the issue's keys) and the options used."""

    traces: pd.DataFrame
    seek: pd.DataFrame
    seek_time: pd.DataFrame
    sweep: pd.DataFrame
    speed: pd.DataFrame
    energy: pd.DataFrame
    look_ahead: pd.DataFrame
    delay: pd.DataFrame
    core: pd.DataFrame
    headline: Dict[str, Any]
    options: Dict[str, Any] = field(default_factory=dict)

    def write(self, out: Union[str, Path], plots: bool = True) -> List[Path]:
        """Write every table as CSV, ``headline.json`` and (``plots=True``) the PNG figures
        into ``out``; return the paths written."""
        return write_reproduction(
            out,
            {name: getattr(self, name) for name in TABLES},
            self.headline,
            self.options,
            self.plot if plots else None,
            claims=claims(self.headline),
        )

    def plot(self, out: Union[str, Path]) -> List[Path]:
        """The paper's figures: 4 (write count against seek distance), 7 (normalised
        perceived write latency against F per RQ scheduler), 8 (idle and flush shares), 9
        (total latency), 10 (years to wear-out), 11 (flash speed), 12 (overwrites), 13 (disk
        duty cycle), and energy against the spin-down timeout."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out = Path(out)
        reduced = " (--quick sizes)" if self.options.get("quick") else ""

        figures = Figures(out, dpi=110, suptitle=True)
        save = figures.save

        s = self.seek[self.seek.lo_bytes > 0]
        fig, ax = plt.subplots(figsize=(6, 4))
        for trace, rows in s.groupby("trace", sort=False):
            plot_ci(ax, rows, "lo_bytes", "writes", marker=".", label=trace)
        ax.set_xscale("log")
        ax.set_yscale("symlog")
        ax.set_xlabel("seek distance (bytes, log bins)")
        ax.set_ylabel("writes")
        ax.axvline(1 << 20, color="grey", ls=":", lw=1)
        ax.legend()
        save(fig, "figure4_seek_distance.png", f"Write count against seek distance (Fig. 4){reduced}")

        sw = self.sweep
        scheds = list(dict.fromkeys(sw.scheduler))
        fig, axes = plt.subplots(1, len(scheds), figsize=(4 * len(scheds), 3.6), sharey=True)
        for ax, sched in zip(axes, scheds):
            for trace, rows in sw[sw.scheduler == sched].groupby("trace", sort=False):
                plot_ci(ax, rows, "fqueue_mib", "write_latency_norm", scale=100, marker="o", label=trace)
            ax.set_xscale("log")
            ax.set_title(sched)
            ax.set_xlabel("FQueue size F (MiB)")
            ax.axhline(100, color="grey", lw=0.8)
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("write access time (% of baseline)")
        figures.mark_paper(axes, 30, "down to 30% (-70%)")
        axes[0].legend()
        save(fig, "figure7_write_latency.png", f"Perceived write latency against F (Fig. 7){reduced}")

        cl = sw[sw.scheduler == "clook"]
        for name, cols, title in (
            ("figure8_idle_flush.png", (("idle_share", "idle-time share of write-back work"),
                                        ("flush_share", "flush writes / platter I/Os")),
             "Idle-time and flush shares, C-LOOK (Fig. 8)"),
            ("figure9_total_latency.png", (("total_latency_norm", "total write latency / baseline"),),
             "Total write latency incl. write-back work, C-LOOK (Fig. 9)"),
            ("figure10_endurance.png", (("years_to_wear_out", "years to 100k erases"),),
             "Flash endurance with optimal wear levelling (Fig. 10)"),
            ("figure12_overwrites.png", (("overwrite_fraction", "redirected writes overwritten in the FQueue"),),
             "Overwrites absorbed in the FQueue (Fig. 12)"),
            ("figure13_duty_cycle.png", (("disk_time_norm", "disk busy time / baseline"),
                                         ("disk_writes_norm", "platter writes / baseline")),
             "Disk duty cycle (Fig. 13)"),
        ):
            fig, axes = plt.subplots(1, len(cols), figsize=(5 * len(cols), 3.6), squeeze=False)
            for ax, (col, label) in zip(axes[0], cols):
                for trace, rows in cl.groupby("trace", sort=False):
                    plot_ci(ax, rows, "fqueue_mib", col, marker="o", label=trace)
                ax.set_xscale("log")
                if col == "years_to_wear_out":
                    ax.set_yscale("log")
                ax.set_xlabel("FQueue size F (MiB)")
                ax.set_ylabel(label)
                ax.grid(alpha=0.3)
            axes[0][0].legend()
            save(fig, name, title + reduced)

        fig, ax = plt.subplots(figsize=(5, 3.6))
        for trace, rows in self.speed.groupby("trace", sort=False):
            plot_ci(ax, rows, "factor", "write_latency_norm", scale=100, marker="o", label=trace)
        ax.set_xlabel("flash write performance factor")
        ax.set_ylabel("write access time (% of baseline)")
        ax.grid(alpha=0.3)
        ax.legend()
        save(fig, "figure11_flash_speed.png", f"Faster flash, F = 100 MiB, C-LOOK (Fig. 11){reduced}")

        e = self.energy
        traces = list(dict.fromkeys(e.trace))
        fig, axes = plt.subplots(1, len(traces), figsize=(4 * len(traces), 3.6), squeeze=False)
        for ax, trace in zip(axes[0], traces):
            for mode, rows in e[e.trace == trace].groupby("mode", sort=False):
                plot_ci(ax, rows, "timeout_s", "energy_j", scale=1e-3, marker="o", label=mode)
            ax.set_xscale("log")
            ax.set_title(trace)
            ax.set_xlabel("spin-down timeout (s)")
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel("platter energy (kJ)")
        axes[0][0].legend()
        save(fig, "energy_spindown.png", f"Energy against spin-down timeout (beyond the paper){reduced}")

        d = self.delay
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
        for (trace, f), rows in d.groupby(["trace", "fqueue_mib"], sort=False):
            label = f"{trace} F={f:g} MiB"
            plot_ci(axes[0], rows, "idle_delay_ms", "overwrites_of_writes", scale=100, marker="o", label=label)
            plot_ci(axes[1], rows, "idle_delay_ms", "write_latency_norm", scale=100, marker="o", label=label)
        axes[0].set_ylabel("overwrites (% of all writes)")
        axes[1].set_ylabel("write access time (% of baseline)")
        for ax in axes:
            ax.set_xscale("symlog", linthresh=100)
            ax.set_xlabel("idle write-back delay (ms)")
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=7)
        save(fig, "idle_delay.png", f"FQueue size against idle write-back delay, C-LOOK{reduced}")
        return figures.paths


def reproduce(
    quick: bool = False,
    hp_trace: Union[str, Path, None, bool] = True,
    synthetic_requests: Optional[int] = None,
    core_requests: Optional[int] = None,
    progress: Union[bool, Callable[[str], Any]] = True,
    seed: Optional[int] = None,
    seeds: Union[int, Seeds, None] = None,
) -> Reproduction:
    """Run the flash-backed paper's evaluation and return its tables.

    ``quick=True`` runs reduced sizes (20,000 requests per stand-in trace, the first 20,000
    HP requests, F in 0.1, 1, 10, 100 MiB: seconds). ``hp_trace``: a path, ``True`` (the
    default: :func:`default_hp_trace` if present) or ``None``/``False`` (stand-ins only).
    ``progress``: ``True`` (a status line), ``False``, or a callable given each step's name.
    Every point runs under ``seeds`` seeds (a count, default 5 and 2 with ``quick``, or a
    :class:`headway.Seeds` plan) from the base ``seed`` (default 1); the seed changes the
    synthetic stand-ins and the core runs, not the recorded HP week (its rows' intervals
    are 0).
    """
    if hp_trace is True:
        hp = default_hp_trace()
    elif hp_trace in (None, False):
        hp = None
    else:
        hp = Path(hp_trace)  # type: ignore[arg-type]
    frames, headline, used = reproduce_seeds(
        "reproduce_flash_backed",
        dict(quick=quick, hp_trace=str(hp) if hp is not None else None,
             synthetic_requests=synthetic_requests, core_requests=core_requests),
        plan_for(quick, seed, seeds),
        TABLES,
        COORDINATES,
        progress,
    )
    return Reproduction(headline=headline, options={"quick": quick, **used}, **frames)


WHY_NOT = "docs/flash_backed.md#why-results-differ"


def claims(h: Dict[str, Any]) -> List[Claim]:
    """The headline against the paper, a row per claim (see :mod:`headway._claims`)."""
    rows = [
        claim("max write latency reduction (fraction of the perceived write latency)",
              f"{h['max_write_latency_reduction']:.3f}", "up to 0.70", h["max_write_latency_reduction"],
              yes=(0.55, 0.85), partly=(0.0, INF), why=WHY_NOT),
    ]
    if h.get("hp_idle_share_10mb") is not None:
        rows.append(claim("HP trace, 10 MB FQueue: share of write-back in idle time",
                          f"{h['hp_idle_share_10mb']:.3f}", "0.9", h["hp_idle_share_10mb"], yes=(0.8, 1.0),
                          partly=(0.2, 1.0), why=WHY_NOT))
    return rows
