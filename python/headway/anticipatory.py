"""Anticipatory scheduling (Iyer and Druschel, SOSP 2001): the paper's evaluation.

:func:`reproduce` runs two synchronous readers in far-apart files on the stand-in for the
paper's 7200 RPM IDE disk (and a faster catalog drive), each wrapped scheduler without
anticipation, with the paper's cost-benefit heuristic and with the Linux-era baselines
(as-iosched's ``antic_expire``, CFQ's ``slice_idle``), and returns the tables as pandas
DataFrames.

>>> import headway.anticipatory as ant
>>> r = ant.reproduce(quick=True, requests=100, progress=False)
>>> sorted(r.patterns.pattern.unique())
['alter', 'random', 'seq']
>>> bool(r.headline["seq_mmap_speedup"] > 1.5)
True

The model, the paper's numbers beside ours and every team choice: ``docs/anticipatory.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

import pandas as pd

from headway import _headway
from headway._reproduction import Figures, write_reproduction
from headway.rotational import _progress_callback

__all__ = ["Reproduction", "reproduce"]

#: Anticipation variants, in the order the tables list them.
HEURISTICS = ("off", "cost-benefit", "linux-as", "slice-idle")


@dataclass(frozen=True)
class Reproduction:
    """The anticipatory paper's tables: ``patterns`` (throughput and utilisation per drive,
    access pattern, wrapped scheduler and heuristic), ``sweeps`` (thinktime, adversary and
    timer-granularity sweeps), ``shares`` (proportional share, shares 1:2), ``apps`` (the application stand-ins: Andrew,
    web server, linker, TPC-B; time and operations per second) and ``headline`` (the numbers compared with the paper)."""

    patterns: pd.DataFrame
    sweeps: pd.DataFrame
    shares: pd.DataFrame
    headline: Dict[str, Any]
    apps: pd.DataFrame = field(default_factory=pd.DataFrame)
    service: pd.DataFrame = field(default_factory=pd.DataFrame)
    options: Dict[str, Any] = field(default_factory=dict)

    def write(self, out: Union[str, Path], plots: bool = True) -> List[Path]:
        """Write ``patterns.csv``, ``sweeps.csv``, ``shares.csv``, ``apps.csv``, ``service.csv``, ``headline.json`` and (``plots=True``) the
        PNG figures into ``out``; return the paths written."""
        return write_reproduction(
            out,
            {name: getattr(self, name) for name in ("patterns", "sweeps", "shares", "apps", "service")},
            self.headline,
            self.options,
            self.plot if plots else None,
        )

    def plot(self, out: Union[str, Path]) -> List[Path]:
        """The paper's figures as PNGs: Figure 5 (throughput by access pattern, original
        against anticipatory), Figure 6 (thinktime sweeps) and Figure 7 (adversary)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out = Path(out)
        reduced = "\n(--quick: reduced sizes, not the paper's)" if self.options.get("quick") else ""

        figures = Figures(out)
        save = figures.save

        p = self.patterns
        drives = list(dict.fromkeys(p.drive))
        fig, axes = plt.subplots(1, len(drives), figsize=(7 * len(drives), 4.5), squeeze=False)
        for ax, drive in zip(axes[0], drives):
            rows = p[(p.drive == drive) & (p.scheduler == "aged-sptf")].copy()
            rows["case"] = rows.pattern + "\n" + rows.fs
            order = [f"{pat}\n{fs}" for pat in ("seq", "alter", "random") for fs in ("read", "mmap")]
            table = rows.pivot(index="case", columns="heuristic", values="throughput_mb_s")
            table = table.reindex([c for c in order if c in table.index])[[h for h in HEURISTICS if h in table.columns]]
            table.plot.bar(ax=ax, rot=0)
            ax.set_ylabel("throughput (MB/s)")
            ax.set_title(f"{drive}, aged SPTF")
            ax.grid(alpha=0.3, axis="y")
        title = f"Access patterns: original vs anticipatory (the paper's Figure 5){reduced}"
        fig.suptitle(title)
        save(fig, "figure5_patterns.png", title)

        s = self.sweeps
        fig, axes = plt.subplots(1, 3, figsize=(14, 4))
        for ax, sweep in zip(axes, ("symmetric", "asymmetric", "random")):
            for h, rows in s[s.sweep == sweep].groupby("heuristic", sort=False):
                ax.plot(rows.x, rows.throughput_mb_s, marker="o", label=h)
            ax.set_xlabel("think time T (ms)")
            ax.set_ylabel("throughput (MB/s)")
            ax.set_title(sweep)
            ax.grid(alpha=0.3)
            ax.legend()
        title = f"Thinktime sweeps, two sequential readers (the paper's Figure 6){reduced}"
        fig.suptitle(title)
        save(fig, "figure6_thinktime.png", title)

        fig, ax = plt.subplots(figsize=(6, 4))
        for h, rows in s[s.sweep == "adversary"].groupby("heuristic", sort=False):
            ax.plot(rows.x, rows.throughput_mb_s, marker="o", label=h)
        ax.set_xlabel("number of rapid requests N")
        ax.set_ylabel("throughput (MB/s)")
        ax.grid(alpha=0.3)
        ax.legend()
        title = f"Adversary (the paper's Figure 7){reduced}"
        ax.set_title(title)
        save(fig, "figure7_adversary.png", title)

        sh = self.shares
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        axes[0].bar(sh.config, sh.service_ratio)
        axes[0].axhline(2.0, color="k", linestyle="--", label="contract 1:2")
        axes[0].set_ylabel("service ratio (share 2 / share 1, disk time)")
        axes[0].legend()
        axes[1].bar(sh.config, sh.throughput_iops)
        axes[1].set_ylabel("throughput (requests/s)")
        for ax in axes:
            ax.grid(alpha=0.3, axis="y")
            ax.tick_params(axis="x", rotation=20)
        title = f"Proportional share, two clients with shares 1:2 (the paper's Figure 12){reduced}"
        fig.suptitle(title)
        save(fig, "figure12_prop_share.png", title)
        _plot_extras(self.sweeps, self.shares, self.service, save, plt, reduced)
        if len(self.apps):
            _plot_apps(self.apps, save, plt, reduced)
        return figures.paths


def _plot_extras(s: pd.DataFrame, sh: pd.DataFrame, service: pd.DataFrame, save, plt, reduced: str) -> None:
    """Cumulative service over time (the paper's Figures 1 and 2), the M-process C-SCAN
    example, the sensitivity sweeps and the R_v sweep."""
    if len(service):
        configs = list(dict.fromkeys(service.config))
        fig, axes = plt.subplots(1, len(configs), figsize=(4 * len(configs), 3.8), squeeze=False)
        for ax, c in zip(axes[0], configs):
            rows = service[service.config == c]
            ax.plot(rows.t_s, rows.share_low_service_s, label="share 1")
            ax.plot(rows.t_s, rows.share_high_service_s, label="share 2")
            ax.set_xlabel("time (s)")
            ax.set_ylabel("cumulative service (s of disk time)")
            ax.set_title(c)
            ax.grid(alpha=0.3)
            ax.legend()
        title = "Proportional share over time, shares 1:2 (the paper's Figures 1-2)"
        fig.suptitle(title + reduced)
        save(fig, "figure2_service_over_time.png", title)
    m = s[s.sweep == "cscan_m"]
    if len(m):
        fig, ax = plt.subplots(figsize=(6, 4))
        for h, rows in m.groupby("heuristic", sort=False):
            ax.plot(rows.x, rows.throughput_mb_s, marker="o", label=h)
        ax.set_xlabel("sequential synchronous processes M")
        ax.set_ylabel("throughput (MB/s)")
        ax.grid(alpha=0.3)
        ax.legend()
        title = "C-SCAN with M sequential readers (the paper's section 2 example)"
        ax.set_title(title + reduced, fontsize=9)
        save(fig, "cscan_m_processes.png", title)
    keys = [k for k in ("bucket_us", "histogram_range_ms", "decay", "seek_weight") if k in set(s.sweep)]
    rv = sh[sh.config == "combination-rv"] if "config" in sh else sh.iloc[0:0]
    if keys or len(rv):
        fig, axes = plt.subplots(1, len(keys) + 1, figsize=(3.6 * (len(keys) + 1), 3.6))
        for ax, k in zip(axes, keys):
            rows = s[s.sweep == k]
            ax.plot(rows.x, rows.throughput_mb_s, marker="o")
            ax.set_xlabel(k)
            ax.set_ylabel("throughput (MB/s)")
            ax.grid(alpha=0.3)
        ax = axes[-1]
        ax.plot(rv.relax_ms, rv.service_ratio, marker="o", label="service ratio")
        ax2 = ax.twinx()
        ax2.plot(rv.relax_ms, rv.throughput_iops, marker="s", color="C1", label="requests/s")
        ax.set_xlabel("R_v (ms)")
        ax.set_ylabel("service ratio")
        ax2.set_ylabel("requests/s")
        ax.grid(alpha=0.3)
        title = "Sensitivity: histogram, E_pos seek weight, R_v of the combination heuristic"
        fig.suptitle(title + reduced)
        save(fig, "sensitivity.png", title)


def _plot_apps(apps: pd.DataFrame, save, plt, reduced: str) -> None:
    """The application figures: Andrew (Figure 8, phase times), the web server (Figure 9,
    throughput), the linker (Figure 10, time), TPC-B (Figure 11, tps) and the faster
    platform (Figure 13), original against each anticipation variant."""
    drives = list(dict.fromkeys(apps.drive))

    def bars(ax, rows, value, label):
        table = rows.pivot_table(index="case", columns="heuristic", values=value, sort=False)
        table = table[[h for h in HEURISTICS if h in table.columns]]
        table.plot.bar(ax=ax, rot=0)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3, axis="y")

    a = apps.copy()
    a["case"] = a.experiment + " x" + a.clients.astype(str) + "\n" + a.scheduler
    figures = [
        ("figure8_andrew.png", "Andrew-like clients: time (the paper's Figure 8)", lambda e: e.startswith("andrew"), "elapsed_s", "time (s)"),
        ("figure9_web.png", "Web server: files served per second (the paper's Figure 9)", lambda e: e.startswith("web"), "ops_per_s", "files/s"),
        ("figure10_linker.png", "Linker, 1 and 2 instances: time (the paper's Figure 10)", lambda e: e == "linker", "elapsed_s", "time (s)"),
        ("figure11_tpcb.png", "TPC-B variants 1-4: transactions per second (the paper's Figure 11)", lambda e: e.startswith("tpcb"), "ops_per_s", "transactions/s"),
    ]
    for name, title, pick, value, label in figures:
        rows = a[(a.drive == drives[0]) & a.experiment.map(pick)]
        if rows.empty:
            continue
        fig, ax = plt.subplots(figsize=(9, 4.5))
        bars(ax, rows, value, label)
        ax.set_title(f"{drives[0]}")
        fig.suptitle(title + reduced)
        save(fig, name, title)
    if len(drives) > 1:
        rows = a[a.drive == drives[1]]
        fig, ax = plt.subplots(figsize=(9, 4.5))
        bars(ax, rows, "ops_per_s", "operations/s")
        ax.set_title(drives[1])
        title = "The faster platform: web server and TPC-B (the paper's Figure 13)"
        fig.suptitle(title + reduced)
        save(fig, "figure13_fast_apps.png", title)


def reproduce(
    quick: bool = False,
    seed: Optional[int] = None,
    drive: Optional[str] = None,
    requests: Optional[int] = None,
    progress: Union[bool, Callable[[str], Any]] = True,
) -> Reproduction:
    """Run the anticipatory paper's evaluation and return its tables.

    ``quick=True`` runs 400 reads per process and shorter sweeps (under a second of
    simulation); the full run 4,000 reads per process. ``drive`` replaces the IDE stand-in
    (``ibm18es``); ``requests`` the reads per process. ``progress`` is ``True`` (a status
    line on stderr), ``False``, or a callable given each step's name.
    """
    cb, status = _progress_callback(progress)
    try:
        raw = _headway.reproduce_anticipatory(
            quick=quick, seed=seed, drive=drive, requests=requests, progress=cb
        )
    finally:
        if status is not None:
            status.stop()
    data = json.loads(raw)
    options = {"quick": quick, **data["options"]}
    return Reproduction(
        patterns=pd.DataFrame(data["patterns"]),
        sweeps=pd.DataFrame(data["sweeps"]),
        shares=pd.DataFrame(data["shares"]),
        service=pd.DataFrame(data["service"]),
        apps=pd.DataFrame(data["apps"]),
        headline=data["headline"],
        options=options,
    )
