"""``headway sweep``: a parameter sweep from a sweep file, locally or on a Dask cluster."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click


@click.command("sweep")
@click.argument("spec", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for runs.parquet, summary.parquet and the per-run files (resumes what is there).")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Run on a Dask distributed scheduler (tcp://host:8786), or `local` for a LocalCluster here.")
@click.option("--workers", type=click.IntRange(min=1), help="Local processes (default: every core).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def sweep_cmd(spec: Path, out_dir: Path, dask_address: Optional[str], workers: Optional[int],
              no_progress: bool) -> None:
    """Run every experiment of the sweep in SPEC (a base experiment, a grid of settings,
    seeds); an interrupted sweep run again with the same --out does only what is missing."""
    from headway.sweeps import load_sweep, sweep

    sw = load_sweep(spec)
    values = {axis: list(dict.fromkeys(repr(p[axis]) for p in sw.points if axis in p)) for axis in sw.axes}
    from headway.cli.tables import console

    console().print(f"{spec}: {len(sw.points)} points x {len(sw.seeds)} seeds = {len(sw.runs())} runs; "
                    + "; ".join(f"{axis} = {', '.join(v)}" for axis, v in values.items()), markup=False)
    table = sweep(sw, out_dir, dask=dask_address, workers=workers, progress=not no_progress)
    failed = table[table["status"] != "ok"]
    _print_summary(out_dir / "summary.parquet", sw.axes)
    click.echo(f"{len(table) - len(failed)} of {len(sw.runs())} runs done, {len(failed)} failed; tables:\n"
               f"  {out_dir / 'runs.parquet'}\n  {out_dir / 'summary.parquet'}")
    for _, row in failed.iterrows():
        settings = ", ".join(f"{k} = {row[k]!r}" for k in sw.axes)
        click.echo(f"failed: {settings}, seed {row['seed']}: {row['error']}", err=True)
    if len(failed):
        raise SystemExit(1)


# The metric the terminal table shows per point (every metric is in summary.parquet).
SHOWN = "mean_response_ms"


def _print_summary(path: Path, axes) -> None:
    """A row per grid point: its settings, runs done and failed, and the mean response time
    with its interval over the seeds."""
    import math

    import pandas as pd

    from headway.cli.tables import console, table

    s = pd.read_parquet(path)
    t = table([*[(axis, "text") for axis in axes], ("runs", "num"), ("failed", "num"), ("mean ms", "num"),
               ("± ms", "num")],
              title="per point (summary.parquet has every metric)",
              caption="mean ms: mean response time over the seeds; ± ms: half its confidence "
              "interval (Student's t, wide with few seeds; - with one seed)")
    for _, row in s.iterrows():
        mean, low, high = (row.get(f"{SHOWN}_{k}") for k in ("mean", "ci_low", "ci_high"))
        interval = "-" if low is None or math.isnan(low) else f"{(high - low) / 2:,.2f}"
        t.add_row(*[str(row[a]) for a in axes], f"{row['runs']:,}", f"{row['failed']:,}",
                  "-" if mean is None or math.isnan(mean) else f"{mean:,.2f}", interval)
    console().print(t)
