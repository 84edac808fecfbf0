"""``headway bench``: the reference benchmark, with DiskSim 4.0's figures beside ours."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import click

from headway._write import write_text
from headway.bench import LOADS, QUEUES, SETUPS, run_bench
from headway.cli.paths import json_option


@click.command("bench", short_help="Time the reference benchmark (requests simulated per s).")
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
    help="A DiskSim 4.0 binary you built: time it on the same traces, in the same session, and print the ratio.",
)
@json_option("Write the results as JSON.")
def bench_cmd(n: int, quick: bool, repeat: int, queue: str, disksim: Optional[Path], json_path: Optional[Path]) -> None:
    """Replay the reference traces on atlas10k with FCFS and SPTF and report requests
    simulated per second (simulation only, not trace generation)."""
    from headway.cli.tables import console as new_console, table as new_table

    if quick:
        n = 100_000
    if disksim is not None and queue != "drive":
        raise click.BadParameter("DiskSim runs its own setup, the drive queue: drop --queue host", param_hint="--vs-disksim")
    console = new_console()
    console.print(f"reference benchmark: {n:,} random 4 KiB reads per trace; {SETUPS[queue]}")
    loads = ", ".join(
        f"{ld.name}: mean inter-arrival {ld.interarrival_ms:g} ms, seed {ld.seed}" for ld in LOADS.values()
    )
    console.print(f"loads: {loads}")
    with console.status("generating traces (cached) and simulating..."):
        cases = run_bench(
            requests=n,
            repeat=repeat,
            queue=queue,
            disksim=disksim,
            on_case=lambda c: console.print(f"  {c.scheduler} {c.load}: {c.requests_per_s:,.0f} requests/s"),
        )
    if disksim is not None:
        import statistics

        table = new_table(
            [("run", "text"), ("core s", "num"), ("whole s", "num"), ("DiskSim s", "num"),
             ("core ratio", "num"), ("whole ratio", "num")],
            title=f"headway and DiskSim in this session, wall time (median of {repeat})",
        )
        cpu = new_table(
            [("run", "text"), ("whole CPU s", "num"), ("DiskSim CPU s", "num"), ("CPU ratio", "num"),
             ("range", "num")],
            title=f"the same processes' CPU time, user + system (median of {repeat})",
        )
        for c in cases:
            run_name = f"{c.scheduler.upper()} {c.load}"
            table.add_row(
                run_name,
                f"{c.median_wall_s:.3f}",
                f"{statistics.median(c.process_wall_s):.3f}",
                f"{statistics.median(c.disksim_wall_s):.3f}",
                f"{c.ratio:.1f}x",
                f"{c.end_to_end_ratio:.1f}x",
            )
            ratios = c.cpu_ratios
            cpu.add_row(
                run_name,
                f"{statistics.median(c.process_cpu_s):.3f}",
                f"{statistics.median(c.disksim_cpu_s):.3f}",
                f"{c.cpu_ratio:.1f}x" if ratios else "-",
                f"{min(ratios):.1f}-{max(ratios):.1f}x" if ratios else "-",
            )
        console.print(table)
        console.print(cpu)
        console.print(
            f"DiskSim: {disksim}, run here in the same session (each repeat: DiskSim's whole process, "
            "headway's whole `headway replay` process, then headway's core in this process). core "
            "ratio: DiskSim's time over headway's simulation loop; whole ratio: over headway's whole "
            "process, start-up included; CPU ratio: DiskSim's CPU time over headway's whole process's, "
            "the median of the repeats' pairwise ratios, and their range. On a shared machine every "
            "figure moves from run to run: when the range is wide, repeat more (--repeat)."
        )
    else:
        table = new_table(
            [("run", "text"), ("requests", "num"), ("wall s", "num"), ("req/s", "num"), ("DiskSim* req/s", "num")],
            title=f"requests simulated per second of wall time (median of {repeat})",
        )
        for c in cases:
            table.add_row(
                f"{c.scheduler.upper()} {c.load}",
                f"{c.requests:,}",
                f"{c.median_wall_s:.3f}",
                f"{c.requests_per_s:,.0f}",
                f"{c.disksim_requests_per_s:,}",
            )
        console.print(table)
        console.print(
            "* DiskSim 4.0's published figures, measured on a different machine (1M requests, "
            "drive queue of 64 with the drive's own FCFS/SPTF, median of 3 runs). They show the "
            "scale only: machines differ by a third from day to day, so compare the two "
            "simulators only when both ran on this machine in the same session: pass "
            "--vs-disksim PATH to time your own DiskSim build here."
        )
    if json_path is not None:
        write_text(json_path, json.dumps([c.to_dict() for c in cases], indent=2) + "\n")
