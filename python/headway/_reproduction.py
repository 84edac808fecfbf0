"""What every paper's reproduction writes the same way: its tables as CSV, ``headline.json``
(``{"headline": {...}, "options": {...}, "claims": [...]}``, the same shape for every paper;
``claims`` is the headline against the paper, see :mod:`headway._claims`) and PNG figures
whose title is also in the file's metadata (where tools and tests can read it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, List, Mapping, Optional, Sequence, Union

from headway._claims import Claim

from headway._write import replacing, write_text


def write_reproduction(
    out: Union[str, Path],
    tables: Mapping[str, Any],
    headline: Mapping[str, Any],
    options: Mapping[str, Any],
    plot: Optional[Callable[[Path], List[Path]]] = None,
    claims: Sequence[Claim] = (),
) -> List[Path]:
    """Write ``NAME.csv`` for each table, ``headline.json`` and, with ``plot``, the figures
    ``plot(out)`` draws; return the paths written (each replaced atomically)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in tables.items():
        p = out / f"{name}.csv"
        with replacing(p) as tmp:
            table.to_csv(tmp, index=False)
        written.append(p)
    p = out / "headline.json"
    doc = {"headline": dict(headline), "options": dict(options), "claims": [c.as_dict() for c in claims]}
    write_text(p, json.dumps(doc, indent=2) + "\n")
    written.append(p)
    if plot is not None:
        written += plot(out)
    return written


def interface_line(headline: Mapping[str, Any]) -> str:
    """The report's line naming the interface profile the headline is measured on, the
    paper's own, and why (``headway interfaces`` lists the profiles)."""
    used, paper = headline["interface"], headline["paper_interface"]
    theirs = "the same" if paper == used else paper
    return f"interface: {used} (the paper's: {theirs}): {headline['interface_why']}"


def plot_ci(ax, rows, x: str, y: str, fmt: str = "", scale: float = 1.0, **style):
    """``y`` against ``x`` from ``rows`` with each point's 95% interval (column ``y_ci95``,
    the half-width) as an error bar; without that column, the line alone. ``scale``
    multiplies both (units); returns the ErrorbarContainer (its ``lines[0]`` is the line)."""
    ci = rows[y + "_ci95"] * scale if y + "_ci95" in rows else None
    return ax.errorbar(rows[x], rows[y] * scale, yerr=ci, fmt=fmt, capsize=3 if ci is not None else 0, **style)


def bars_ci(ax, frame, index: str, columns: str, value: str, order=None, **style) -> None:
    """A grouped bar chart of ``value`` (rows ``index``, one bar per ``columns`` value, in
    ``order`` when given) with the 95% intervals (``value_ci95``) as error bars."""
    table = frame.pivot_table(index=index, columns=columns, values=value, sort=False)
    err = None
    if value + "_ci95" in frame:
        err = frame.pivot_table(index=index, columns=columns, values=value + "_ci95", sort=False)
    if order is not None:
        keep = [c for c in order if c in table.columns]
        table = table[keep]
        err = err[keep] if err is not None else None
    if err is not None:
        err = err.reindex(index=table.index, columns=table.columns)
    table.plot.bar(ax=ax, yerr=err, capsize=2, **style)


def seeds_line(options: Mapping[str, Any]) -> str:
    """The report's line naming the seeds the tables are over and, with ``--until-ci``,
    where the stopping rule stopped."""
    seeds = options.get("seeds") or [options.get("seed")]
    text = f"seeds: {len(seeds)} ({seeds[0]}-{seeds[-1]}); tables: mean and 95% interval (_ci95) per point"
    if options.get("until_ci") is not None:
        if options.get("stopped") == "within":
            text += f"; every headline interval within {options['until_ci']:g} of its mean"
        else:
            text += (f"; stopped at --max-seeds {options['max_seeds']} with intervals wider than "
                     f"{options['until_ci']:g} of the mean: {', '.join(options.get('widest', []))}")
    return text


class Figures:
    """Saves a paper's figures into ``out`` and remembers their paths (``.paths``)."""

    def __init__(self, out: Union[str, Path], dpi: int = 120, suptitle: bool = False, title_suffix: str = ""):
        self.out = Path(out)
        self.paths: List[Path] = []
        self._dpi = dpi
        self._suptitle = suptitle
        self._suffix = title_suffix
        self._marks: List[str] = []

    def mark_paper(self, ax, y: float, text: str) -> None:
        """The paper's own figure on the next figure saved: a dashed line at ``y`` on ``ax``
        (an Axes, or several) labelled ``paper: text`` (in the legend when the axes has one;
        add it before ``legend()``), also listed in the file's metadata (``Description``)."""
        for one in (ax if hasattr(ax, "__iter__") else [ax]):
            one.axhline(y, color="0.35", linestyle="--", linewidth=1.0, label=f"paper: {text}")
        self._marks.append(text)

    def lines(self, frame, by: str, x: str, y: str, *, xlabel: str, ylabel: str, name: str, title: str,
              style=None, ylog: bool = False, figsize=(6, 4), from_zero: bool = False) -> None:
        """One line of ``y`` against ``x`` per value of column ``by`` (in order of first
        appearance), with a legend and grid, saved as ``name``. ``style(value)`` gives that
        line's plot keywords (default: round markers). ``from_zero``: both quantities are
        never negative (counts, bandwidths), so both axes start at 0."""
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=figsize)
        for value, rows in frame.groupby(by, sort=False):
            plot_ci(ax, rows, x, y, label=value, **(style(value) if style else {"marker": "o"}))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if ylog:
            ax.set_yscale("log")
        if from_zero:
            ax.set_xlim(left=0)
            ax.set_ylim(bottom=0)
        ax.legend()
        ax.grid(alpha=0.3)
        ax.set_title(title, fontsize=9)
        self.save(fig, name, title)

    def save(self, fig, name: str, title: str) -> None:
        """Lay out ``fig``, write it as ``name`` with ``title`` in its metadata, close it.
        With ``suptitle``, the title (and the suffix) is also drawn above the figure."""
        import matplotlib.pyplot as plt

        if self._suptitle:
            fig.suptitle(title + self._suffix)
        fig.tight_layout()
        self.paths.append(self.out / name)
        metadata = {"Title": title.replace("\n", " ")}
        if self._marks:
            metadata["Description"] = "paper's figures marked: " + "; ".join(self._marks)
            self._marks = []
        with replacing(self.paths[-1]) as tmp:
            fig.savefig(tmp, dpi=self._dpi, metadata=metadata)
        plt.close(fig)
