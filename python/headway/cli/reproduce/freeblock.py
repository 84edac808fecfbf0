"""``headway reproduce freeblock``: freeblock scheduling outside disk firmware."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from headway.cli.paths import output_folder
from headway.cli.reproduce.outputs import write_outputs
from headway.cli.reproduce.seeding import seed_options


@click.command("freeblock", short_help="Lumb, Schindler and Ganger's freeblock scheduling (Atlas 10K).")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), callback=output_folder,
              help="Write sweep.csv, imperfect_sweep.csv, firmware.csv, bus.csv, queue.csv, prediction_pdf.csv, prediction.csv, headline.json and PNG plots here.")
@click.option("--quick", is_flag=True, help="Reduced sizes (3,000 requests per run, 4 values of c_fb): seconds.")
@click.option("--seed", type=int, help="Base seed: the seeds are SEED, SEED+1, ... (default 1).")
@click.option("--requests", type=click.IntRange(min=1), help="Foreground requests per run.")
@click.option("--no-plots", is_flag=True, help="CSV and JSON only.")
@seed_options
def freeblock_cmd(out_dir: Optional[Path], quick: bool, seed: Optional[int], requests: Optional[int],
                  no_plots: bool, seeds) -> None:
    """Freeblock scheduling on the Atlas 10K: an OLTP foreground (MPL 10, 30 ms think time)
    with a full-disk scan in its rotational latency; foreground and free bandwidth over the
    seek conservatism c_fb for SSTF, SPTF and SPTF-SW, each against a paired run without free
    reads, and the foreground schedulers against the drive's own SPTF."""
    from headway.freeblock import reproduce

    r = reproduce(quick=quick, seed=seed, requests=requests, seeds=seeds)
    _print(r)
    write_outputs(r, out_dir, no_plots)


def _print(r) -> None:
    from headway._reproduction import interface_line, seeds_line
    from headway.cli.tables import console as new_console, table

    console = new_console()
    t = table(
        [("FG", "text"), ("c_fb ms", "num"), ("FG MB/s", "num"), ("paired", "num"), ("resp +%", "num"),
         ("free MB/s", "num"), ("potential", "num")],
        title="Foreground and free bandwidth against seek conservatism",
        caption="paired: the same run without free reads; resp +%: change of the mean foreground "
        "response time; potential: media rate x fraction of time in rotational latency",
    )
    for row in r.sweep.itertuples():
        t.add_row(row.foreground, f"{row.c_fb_ms:.1f}", f"{row.fg_bandwidth_mb_s:.3f}",
                  f"{row.paired_fg_bandwidth_mb_s:.3f}", f"{100 * row.fg_response_increase:+.2f}",
                  f"{row.free_bandwidth_mb_s:.3f}", f"{row.potential_free_bandwidth_mb_s:.3f}")
    console.print(t)
    console.print()
    p = table([("requests", "text"), ("commands", "num"), ("within 0.5 ms", "num"), ("+1 rotation", "num"),
               ("|err| ms", "num")],
              title="Prediction error (measured - predicted completion, two at the drive)",
              caption="+1 rotation: share at least 3 ms late; |err|: mean absolute error")
    for row in r.prediction.itertuples():
        p.add_row(row.case, f"{row.commands:,}", f"{row.within_half_ms:.1%}", f"{row.late_rotation:.1%}",
                  f"{row.mean_abs_error_ms:.2f}")
    console.print(p)
    console.print()
    from headway.cli.tables import claims_table
    from headway.freeblock import claims

    console.print(claims_table(claims(r.headline), title=f"Headline (SPTF, c_fb = {r.headline['c_fb_ms']} ms)"))
    console.print(interface_line(r.headline))
    console.print(seeds_line(r.options))
