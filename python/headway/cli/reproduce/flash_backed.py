"""``headway reproduce flash-backed``: Bisson and Brandt's flash-backed I/O on hybrid disks."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from headway.cli.paths import output_folder
from headway.cli.reproduce.outputs import write_outputs
from headway.cli.reproduce.seeding import seed_options


@click.command("flash-backed", short_help="Bisson and Brandt's flash-backed I/O on hybrid disks.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), callback=output_folder,
              help="Write the CSVs (sweep, seek, speed, energy, core, ...), headline.json and PNG plots here.")
@click.option("--quick", is_flag=True, help="Reduced sizes (20,000 requests per trace): seconds, not minutes.")
@click.option("--hp-trace", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The HP week (ajw.1week.srt); default: reference/traces/hplajw in the reference data "
              "($HEADWAY_SHARED, or a shared folder beside the clone or above it) if present.")
@click.option("--no-hp", is_flag=True, help="Run the synthetic stand-ins only.")
@click.option("--synthetic-requests", type=click.IntRange(min=1), help="Requests in each synthetic stand-in trace.")
@click.option("--seed", type=int, help="Base seed: the seeds are SEED, SEED+1, ... (default 1).")
@click.option("--no-plots", is_flag=True, help="CSV and JSON only.")
@seed_options
def flash_backed_cmd(out_dir: Optional[Path], quick: bool, hp_trace: Optional[Path], no_hp: bool,
                     synthetic_requests: Optional[int], seed: Optional[int], no_plots: bool, seeds) -> None:
    """Flash-backed I/O (MASCOTS 2007) on the EK1000 stand-in with the Ultra II CF stand-in
    flash: perceived and total write latency against the FQueue size for FCFS, SSTF and
    C-LOOK, idle-time and flush shares, endurance, flash speed, overwrites, disk duty cycle,
    energy against the spin-down timeout, and the same policy on the core."""
    from headway.flash_backed import reproduce

    hp = None if no_hp else (hp_trace if hp_trace is not None else True)
    r = reproduce(quick=quick, hp_trace=hp, synthetic_requests=synthetic_requests, seed=seed, seeds=seeds)
    _print(r)
    write_outputs(r, out_dir, no_plots)


def _print(r) -> None:
    from headway._reproduction import interface_line, seeds_line
    from headway.cli.tables import console as new_console, table

    console = new_console()
    t = table([("trace", "text"), ("F MiB", "num"), ("write", "num"), ("base", "num"),
               ("perceived", "num"), ("total", "num"), ("idle", "num"), ("flush", "num"),
               ("years", "num")],
              title="Flash-backed I/O under C-LOOK (paper model)",
              caption="write / base: mean write latency in ms, redirected / without redirection; "
              "perceived / total: write latency over the paired run without redirection; "
              "idle: share of write-back work done in idle time; flush: flush writes / platter I/Os")
    for row in r.sweep[r.sweep.scheduler == "clook"].itertuples():
        years = row.years_to_wear_out
        t.add_row(row.trace, f"{row.fqueue_mib:g}", f"{row.write_ms:.2f}", f"{row.base_write_ms:.2f}",
                  f"{row.write_latency_norm:.3f}", f"{row.total_latency_norm:.3f}",
                  f"{row.idle_share:.3f}", f"{row.flush_share:.3f}",
                  "-" if years != years or years is None else f"{years:,.1f}")
    console.print(t)
    from headway.cli.tables import claims_table
    from headway.flash_backed import claims

    console.print()
    console.print(claims_table(claims(r.headline)))
    console.print(interface_line(r.headline))
    console.print(seeds_line(r.options))
