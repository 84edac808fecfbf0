"""``headway reproduce rebuild``: an array's rebuild policies, rebuild time against
foreground impact."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from headway.cli.paths import output_folder
from headway.cli.reproduce.outputs import write_outputs
from headway.cli.reproduce.seeding import seed_options


@click.command("rebuild", short_help="RAID 5 rebuild policies: rebuild time against foreground impact.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), callback=output_folder,
              help="Write policies.csv, headline.json and rebuild.png here.")
@click.option("--quick", is_flag=True, help="Reduced sizes (100 rows, 6,000 requests, two rates): seconds.")
@click.option("--seed", type=int, help="Base seed: the seeds are SEED, SEED+1, ... (default 1).")
@click.option("--no-plots", is_flag=True, help="CSV and JSON only.")
@seed_options
def rebuild_cmd(out_dir: Optional[Path], quick: bool, seed: Optional[int], no_plots: bool, seeds) -> None:
    """A 4+1 RAID 5 of Atlas 10K drives loses a member under an OLTP-like foreground and
    rebuilds onto a spare: at several rates, in idle time, and in the foreground's
    rotational gaps (freeblock, without and with idle-time reads). Each policy's rebuild
    time and the foreground's mean response while it runs, against the same window of the
    same failure without a rebuild."""
    from headway.errors import ConfigError
    from headway.rebuild import reproduce

    try:
        r = reproduce(quick=quick, seed=seed, seeds=seeds)
    except ConfigError as e:
        raise click.UsageError(str(e)) from None
    _print(r)
    write_outputs(r, out_dir, no_plots)


def _print(r) -> None:
    from headway._reproduction import seeds_line
    from headway.cli.tables import console as new_console, table

    console = new_console()
    t = table([("policy", "text"), ("MB/s", "num"), ("rebuild s", "num"), ("rows", "num"),
               ("during ms", "num"), ("base ms", "num"), ("+%", "num")],
              title="Rebuild time against foreground impact",
              caption="rebuild s: failure to last row written (empty: not finished within the run); "
              "during: the foreground's mean response from the failure to the rebuild's end; "
              "base: the same window without a rebuild; +%: the foreground's response during against base")
    for row in r.policies.itertuples():
        rate = "" if row.rate_mb_s != row.rate_mb_s else f"{row.rate_mb_s:g}"
        rebuild = "" if row.rebuild_s != row.rebuild_s else f"{row.rebuild_s:.2f}"
        t.add_row(row.policy, rate, rebuild, f"{row.rows_fraction:.0%}", f"{row.during_response_ms:.2f}",
                  f"{row.baseline_response_ms:.2f}",
                  f"{100 * row.response_increase:+.1f}")
    console.print(t)
    console.print(seeds_line(r.options))
