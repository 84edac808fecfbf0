"""Parameter sweeps: a base experiment, a grid (and zipped axes, and explicit points) over
any of its settings, repeated seeds; run on every local core or on a Dask cluster; results
in Parquet, resumable. See :mod:`headway.sweeps.spec` for the file format.

>>> import headway, tempfile
>>> spec = {"base": {"drive": {"name": "elite3"}, "workload": {"requests": 200}},
...         "grid": {"host.scheduler": ["fcfs", "sstf"]}, "seeds": 2}
>>> table = headway.sweep(spec, out=tempfile.mkdtemp(), workers=1, progress=False)
>>> len(table), sorted(table["host.scheduler"].unique())
(4, ['fcfs', 'sstf'])
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from headway.sweeps.plot import plot
from headway.sweeps.spec import Run, Sweep, load_sweep, parse_sweep
from headway.sweeps.store import Store

__all__ = ["sweep", "load_sweep", "parse_sweep", "summary", "plot", "Sweep", "Run"]

SweepLike = Union[str, "os.PathLike[str]", Mapping[str, Any], Sweep]

# How often the Parquet tables are rewritten while runs finish.
TABLE_EVERY_S = 2.0


def _as_sweep(spec: SweepLike) -> Sweep:
    if isinstance(spec, Sweep):
        return spec
    if isinstance(spec, Mapping):
        return parse_sweep(spec, source="sweep", folder=Path.cwd())
    return load_sweep(spec)


def sweep(
    spec: SweepLike,
    out: "str | os.PathLike[str]",
    *,
    dask: Optional[str] = None,
    workers: Optional[int] = None,
    progress: Union[bool, Callable[[int, int, int], Any]] = True,
):  # -> pandas.DataFrame
    """Run every run of ``spec`` (a sweep file, a dict of the same shape, or a
    :class:`Sweep`) not already finished in ``out``, and return the runs table (one row per
    run: settings as their dotted keys, ``seed``, summary keys, ``status`` and ``error``).

    ``dask``: a scheduler address, or ``"local"`` for a LocalCluster; default: a local
    process pool of ``workers`` processes (every core). ``progress``: a bar on stderr, or a
    callable given ``(done, failed, remaining)``. ``out/runs.parquet`` and
    ``out/summary.parquet`` (mean and interval over seeds per grid point) are rewritten as
    runs finish; calling again with the same ``out`` reruns only what is missing or failed.
    """
    from headway.sweeps.execute import run_dask, run_local, tasks_for
    from headway.sweeps.store import make_row

    sw = _as_sweep(spec)
    store = Store(out)
    all_runs = sw.runs()
    finished = store.finished()
    rows: Dict[str, Dict[str, Any]] = {r.run_id: finished[r.run_id] for r in all_runs if r.run_id in finished}
    todo = [r for r in all_runs if r.run_id not in rows]
    work = tasks_for(sw, todo)
    failed = 0

    report = _progress(progress, len(all_runs))
    report.update(len(rows), 0)
    last_write = time.monotonic()
    try:
        outcomes = run_dask(work, dask) if dask else run_local(work, workers)
        for run, (summary, error) in outcomes:
            row = make_row(run, summary, error)
            store.save(row)
            rows[run.run_id] = row
            failed += error is not None
            report.update(len(rows) - failed, failed)
            if time.monotonic() - last_write > TABLE_EVERY_S:
                store.write_tables(sw, rows.values())
                last_write = time.monotonic()
    finally:
        report.close()
        table = store.write_tables(sw, rows.values())
    return table


def summary(table, spec: SweepLike):  # -> pandas.DataFrame
    """Mean and confidence interval over seeds per grid point of a runs table."""
    from headway.sweeps.stats import summarise

    return summarise(table, _as_sweep(spec))


class _Report:
    def __init__(self, total: int, callback=None, bar=None) -> None:
        self.total, self.callback, self.bar = total, callback, bar
        self.task = None
        if bar is not None:
            bar.start()
            self.task = bar.add_task("sweep", total=total, failed=0, remaining=total)

    def update(self, done: int, failed: int) -> None:
        remaining = self.total - done - failed
        if self.callback is not None:
            self.callback(done, failed, remaining)
        if self.bar is not None:
            self.bar.update(self.task, completed=done + failed, failed=failed, remaining=remaining)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _progress(progress, total: int) -> _Report:
    if callable(progress):
        return _Report(total, callback=progress)
    if not progress:
        return _Report(total)
    import sys

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("failed {task.fields[failed]}  remaining {task.fields[remaining]}"),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
        disable=not sys.stderr.isatty(),
    )
    return _Report(total, bar=bar)
