"""``headway reproduce anticipatory``: Iyer and Druschel's anticipatory scheduling."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from headway.cli.paths import output_folder
from headway.cli.reproduce.outputs import write_outputs
from headway.cli.reproduce.seeding import seed_options


@click.command(
    "anticipatory", short_help="Iyer and Druschel's anticipatory scheduling (IDE stand-in)."
)
@click.option("--out", "out_dir", type=click.Path(path_type=Path), callback=output_folder,
              help="Write patterns.csv, sweeps.csv, shares.csv, apps.csv, service.csv, phases.csv, headline.json and PNG plots here.")
@click.option("--quick", is_flag=True, help="Reduced sizes (400 reads per process, shorter sweeps): seconds.")
@click.option("--seed", type=int, help="Base seed: the seeds are SEED, SEED+1, ... (default 1).")
@click.option("--drive", help="Catalog drive standing in for the paper's IDE disk (default ibm18es).")
@click.option("--requests", type=click.IntRange(min=1), help="Reads per process per run.")
@click.option("--no-plots", is_flag=True, help="CSV and JSON only.")
@seed_options
def anticipatory_cmd(out_dir: Optional[Path], quick: bool, seed: Optional[int], drive: Optional[str],
                     requests: Optional[int], no_plots: bool, seeds) -> None:
    """Anticipatory scheduling: two synchronous readers in far-apart files, each wrapped
    scheduler without anticipation, with the paper's cost-benefit heuristic and with the
    Linux-era baselines (access patterns, thinktime sweeps, adversary, timer granularity,
    a faster drive)."""
    from headway.anticipatory import reproduce

    r = reproduce(quick=quick, seed=seed, drive=drive, requests=requests, seeds=seeds)
    _print(r)
    write_outputs(r, out_dir, no_plots)


def _print(r) -> None:
    from headway._reproduction import interface_line, seeds_line
    from headway.anticipatory import HEURISTICS
    from headway.cli.tables import console as new_console, table

    console = new_console()
    # A table per drive: with the drive as a column the table needs 87 columns.
    for drive, p in r.patterns.groupby("drive", sort=False):
        t = table([("pattern", "text"), ("fs", "text"), ("scheduler", "text"), *[(h, "num") for h in HEURISTICS]],
                  title=f"Throughput (MB/s) by access pattern, two synchronous readers, {drive}",
                  caption="off: no anticipation; cost-benefit: the paper's heuristic; linux-as: "
                  "antic_expire 6 ms; slice-idle: CFQ's 8 ms window")
        for (pattern, fs, sched), rows in p.groupby(["pattern", "fs", "scheduler"], sort=False):
            by = rows.set_index("heuristic").throughput_mb_s
            t.add_row(pattern, fs, sched, *[f"{by[h]:.2f}" for h in HEURISTICS])
        console.print(t)
        console.print()
    console.print()
    from headway.anticipatory import claims
    from headway.cli.tables import claims_table

    console.print(claims_table(claims(r.headline)))
    console.print(interface_line(r.headline))
    console.print(seeds_line(r.options))
