"""``headway reproduce rotational``: Huang and Chiueh's rotation-aware scheduling."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from headway.cli.paths import output_folder
from headway.cli.reproduce.outputs import write_outputs
from headway.cli.reproduce.seeding import seed_options


def _queue_lengths(ctx: click.Context, param: click.Parameter, value: Optional[str]):
    if value is None:
        return None
    try:
        qs = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"{value!r}: give queue lengths as integers, e.g. 1,10,100") from None
    if not qs or min(qs) < 1:
        raise click.BadParameter(f"{value!r}: queue lengths must be at least 1")
    return qs


@click.command(
    "rotational", short_help="Huang and Chiueh's rotation-aware scheduling (ST41601N)."
)
@click.option("--out", "out_dir", type=click.Path(path_type=Path), callback=output_folder,
              help="Write utilisation.csv, prediction.csv, traces.csv, stability.csv, headline.json and PNG plots here.")
@click.option("--quick", is_flag=True, help="Reduced sizes (queue lengths 1,10,50,200; 20xQ requests): seconds, not minutes.")
@click.option("--seed", type=int, help="Base seed: the seeds are SEED, SEED+1, ... (default 1).")
@click.option("--drive", help="Catalog drive (default st41601n, the paper's drive).")
@click.option("--queue-lengths", callback=_queue_lengths, help="Comma-separated queue lengths, e.g. 1,10,100.")
@click.option("--requests-per-queued", type=click.IntRange(min=1), help="Requests per run = this x queue length (paper: 100).")
@click.option("--trace-requests", type=click.IntRange(min=1), help="Requests in each stand-in day.")
@click.option("--stability-trials", type=click.IntRange(min=1),
              help="Trials per point of the Stability experiment (default 30).")
@click.option("--no-plots", is_flag=True, help="CSV and JSON only.")
@seed_options
def rotational_cmd(out_dir: Optional[Path], quick: bool, seed: Optional[int], drive: Optional[str],
                   queue_lengths, requests_per_queued: Optional[int], trace_requests: Optional[int],
                   stability_trials: Optional[int], no_plots: bool, seeds) -> None:
    """Huang and Chiueh's rotation-latency-sensitive scheduling on the ST41601N: FCFS,
    C-SCAN, STF, GSTF and WSTF over queue lengths (Figure 10), the bursty stand-ins for the
    lab days (Figure 9), head-prediction accuracy and the Stability experiment."""
    from headway.rotational import reproduce

    r = reproduce(quick=quick, seed=seed, drive=drive, queue_lengths=queue_lengths,
                  requests_per_queued=requests_per_queued, trace_requests=trace_requests,
                  stability_trials=stability_trials, seeds=seeds)
    _print(r)
    write_outputs(r, out_dir, no_plots)


def _print(r) -> None:
    from headway._reproduction import interface_line, seeds_line
    from headway.cli.tables import console as new_console, table

    console = new_console()
    u = r.utilisation
    scheds = list(dict.fromkeys(u.scheduler))
    for col, title, fmt in (
        ("utilisation", "Synthetic workload: utilisation (media transfer / elapsed)", lambda v: f"{v:.4f}"),
        ("max_response_ms", "Synthetic workload: maximum response time (s)", lambda v: f"{v / 1e3:.2f}"),
    ):
        t = table([("Q", "num"), *[(s, "num") for s in scheds]], title=title, caption="Q: queue length")
        for q, rows in u.groupby("queue_length"):
            by = rows.set_index("scheduler")[col]
            t.add_row(str(q), *[fmt(by[s]) for s in scheds])
        console.print(t)
        console.print()

    p = table(
        [("predictor", "text"), ("drive", "text"), ("Q", "num"), ("cmds", "num"), ("mispred", "num"),
         ("overest", "num"), ("|err| ms", "num"), ("util", "num")],
        title="Head prediction under STF",
        caption="Q: queue length; cmds: commands predicted; mispred / overest: share that took "
        "more than half a rotation longer / shorter than predicted; |err|: mean absolute "
        "error; util: utilisation (media transfer / elapsed)",
    )
    for row in r.prediction.itertuples():
        p.add_row(row.predictor, row.drive, str(row.queue_length), f"{row.requests:,}",
                  f"{row.mispredicted_fraction:.3f}", f"{row.overestimated_fraction:.3f}",
                  f"{row.mean_abs_error_ms:.3f}", f"{row.utilisation:.4f}")
    console.print(p)
    console.print()

    tr = table(
        [("day", "text"), ("scheduler", "text"), ("requests", "num"), ("util", "num"), ("mean ms", "num"),
         ("max ms", "num"), ("queue", "num")],
        title="Stand-in lab days",
        caption="util: utilisation (media transfer / busy time); mean, max: response time; "
        "queue: mean requests in the system seen at arrival",
    )
    for row in r.traces.itertuples():
        tr.add_row(row.workload, row.scheduler, f"{row.requests:,}", f"{row.utilisation:.4f}",
                   f"{row.mean_response_ms:.1f}", f"{row.max_response_ms:.1f}", f"{row.mean_queue_at_arrival:.1f}")
    console.print(tr)
    console.print()

    from headway.cli.tables import claims_table
    from headway.rotational import claims

    console.print(claims_table(claims(r.headline), title="Headline (the paper's claims)"))
    console.print(interface_line(r.headline))
    console.print(seeds_line(r.options))
    console.print()
