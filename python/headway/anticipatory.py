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
from headway._write import replacing, write_text
from headway.rotational import _progress_callback

__all__ = ["Reproduction", "reproduce"]

#: Anticipation variants, in the order the tables list them.
HEURISTICS = ("off", "cost-benefit", "linux-as", "slice-idle")


@dataclass(frozen=True)
class Reproduction:
    """The anticipatory paper's tables: ``patterns`` (throughput and utilisation per drive,
    access pattern, wrapped scheduler and heuristic), ``sweeps`` (thinktime, adversary and
    timer-granularity sweeps), ``shares`` (proportional share, shares 1:2) and ``headline`` (the numbers compared with the paper)."""

    patterns: pd.DataFrame
    sweeps: pd.DataFrame
    shares: pd.DataFrame
    headline: Dict[str, Any]
    options: Dict[str, Any] = field(default_factory=dict)

    def write(self, out: Union[str, Path], plots: bool = True) -> List[Path]:
        """Write ``patterns.csv``, ``sweeps.csv``, ``shares.csv``, ``headline.json`` and (``plots=True``) the
        PNG figures into ``out``; return the paths written."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name in ("patterns", "sweeps", "shares"):
            p = out / f"{name}.csv"
            with replacing(p) as tmp:
                getattr(self, name).to_csv(tmp, index=False)
            written.append(p)
        p = out / "headline.json"
        write_text(p, json.dumps({"headline": self.headline, "options": self.options}, indent=2) + "\n")
        written.append(p)
        if plots:
            written += self.plot(out)
        return written

    def plot(self, out: Union[str, Path]) -> List[Path]:
        """The paper's figures as PNGs: Figure 5 (throughput by access pattern, original
        against anticipatory), Figure 6 (thinktime sweeps) and Figure 7 (adversary)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out = Path(out)
        paths = []
        reduced = "\n(--quick: reduced sizes, not the paper's)" if self.options.get("quick") else ""

        def save(fig, name: str, title: str) -> None:
            fig.tight_layout()
            paths.append(out / name)
            with replacing(paths[-1]) as tmp:
                fig.savefig(tmp, dpi=120, metadata={"Title": title.replace("\n", " ")})
            plt.close(fig)

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
        return paths


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
        headline=data["headline"],
        options=options,
    )
