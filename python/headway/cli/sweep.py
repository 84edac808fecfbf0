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
    table = sweep(sw, out_dir, dask=dask_address, workers=workers, progress=not no_progress)
    failed = table[table["status"] != "ok"]
    click.echo(f"{len(table) - len(failed)} of {len(sw.runs())} runs done, {len(failed)} failed; "
               f"tables in {out_dir / 'runs.parquet'} and {out_dir / 'summary.parquet'}")
    for _, row in failed.iterrows():
        settings = ", ".join(f"{k} = {row[k]!r}" for k in sw.axes)
        click.echo(f"failed: {settings}, seed {row['seed']}: {row['error']}", err=True)
    if len(failed):
        raise SystemExit(1)
