"""``headway bench``: the reference benchmark, with DiskSim 4.0's figures beside ours."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import click

from headway.bench import LOADS, QUEUES, SETUPS, run_bench


@click.command("bench")
@click.option(
    "--requests",
    "n",
    type=click.IntRange(min=1),
    default=1_000_000,
    show_default=True,
    help="Requests per trace.",
)
@click.option("--quick", is_flag=True, help="100,000 requests per trace.")
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Runs per case; the median is reported.",
)
@click.option(
    "--queue",
    type=click.Choice(QUEUES),
    default="drive",
    show_default=True,
    help="drive: DiskSim's setup (the drive orders a queue of 64); host: the host orders, one command at the drive.",
)
@click.option(
    "--vs-disksim",
    "disksim",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A DiskSim 4.0 binary you built: time it on the same traces, in the same sitting, and print the ratio.",
)
@click.option("--json", "json_path", type=click.Path(path_type=Path), help="Write the results as JSON.")
def bench_cmd(n: int, quick: bool, repeat: int, queue: str, disksim: Optional[Path], json_path: Optional[Path]) -> None:
    """Replay the reference traces on atlas10k with FCFS and SPTF and report requests
    simulated per second (simulation only, not trace generation)."""
    from rich.console import Console
    from rich.table import Table

    if quick:
        n = 100_000
    if disksim is not None and queue != "drive":
        raise click.BadParameter("DiskSim runs its own setup, the drive queue: drop --queue host", param_hint="--vs-disksim")
    console = Console()
    console.print(f"reference benchmark: {n:,} random 4 KiB reads per trace; {SETUPS[queue]}", soft_wrap=True)
    loads = ", ".join(
        f"{ld.name}: mean inter-arrival {ld.interarrival_ms:g} ms, seed {ld.seed}" for ld in LOADS.values()
    )
    console.print(f"loads: {loads}", soft_wrap=True)
    with console.status("generating traces (cached) and simulating..."):
        cases = run_bench(
            requests=n,
            repeat=repeat,
            queue=queue,
            disksim=disksim,
            on_case=lambda c: console.print(f"  {c.scheduler} {c.load}: {c.requests_per_s:,.0f} requests/s"),
        )
    table = Table(title=f"requests simulated per second of wall time (median of {repeat})")
    columns = ["run", "requests", "wall s", "req/s", "DiskSim req/s", "ratio"]
    if disksim is not None:
        columns = ["run", "core s", "whole s", "DiskSim s", "core ratio", "whole ratio"]
    for col in columns:
        table.add_column(col, justify="left" if col == "run" else "right", no_wrap=True)
    for c in cases:
        if disksim is not None:
            import statistics

            table.add_row(
                f"{c.scheduler.upper()} {c.load}",
                f"{c.median_wall_s:.3f}",
                f"{statistics.median(c.process_wall_s):.3f}",
                f"{statistics.median(c.disksim_wall_s):.3f}",
                f"{c.ratio:.1f}x",
                f"{c.end_to_end_ratio:.1f}x",
            )
        else:
            table.add_row(
                f"{c.scheduler.upper()} {c.load}",
                f"{c.requests:,}",
                f"{c.median_wall_s:.3f}",
                f"{c.requests_per_s:,.0f}",
                f"{c.disksim_requests_per_s:,}",
                f"{c.ratio:.1f}x",
            )
    console.print(table)
    if disksim is not None:
        console.print(
            f"DiskSim: {disksim}, run here in the same sitting (each repeat: headway's core, headway's "
            "whole `headway replay` process, DiskSim's whole process). core ratio: DiskSim's time over "
            "headway's simulation loop; whole ratio: over headway's whole process, start-up included.",
            soft_wrap=True,
        )
    else:
        console.print(
            "DiskSim 4.0 figures: shared/bench/README.md (1M requests, drive queue of 64 with the drive's "
            "own FCFS/SPTF, measured on this workplace's 2-core machines). A ratio is only meaningful "
            "when both ran on the same machine in the same sitting: pass --vs-disksim PATH to time your "
            "own DiskSim build here.",
            soft_wrap=True,
        )
    if json_path is not None:
        json_path.write_text(json.dumps([c.to_dict() for c in cases], indent=2) + "\n", encoding="utf-8")
