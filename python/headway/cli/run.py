"""``headway run`` (an experiment file, or the built-in default) and ``headway replay``
(a trace on a drive)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import click

from headway.api import run as run_experiment
from headway.cli.report import output_options, print_summary, show_progress, write_outputs


def _run_and_report(
    config, seed, json_path, csv_path, parquet_path, records_path, quiet, no_progress
) -> None:
    result = run_experiment(
        config,
        seed=seed,
        records=records_path is not None,
        progress=show_progress(quiet, no_progress),
    )
    write_outputs(result, json_path, csv_path, parquet_path, records_path)
    if not quiet:
        print_summary(result)


@click.command("run")
@click.argument("config", required=False, type=click.Path(path_type=Path))
@output_options
def run_cmd(config: Optional[Path], **outputs) -> None:
    """Run the experiment in CONFIG (TOML), or the built-in default when none is given."""
    _run_and_report(config, **outputs)


@click.command("replay")
@click.argument("trace", type=click.Path(path_type=Path))
@click.option("--format", "fmt", default="disksim-ascii", show_default=True, help="Trace format.")
@click.option(
    "--drive", default="atlas10k", show_default=True, help="Drive name (see `headway disks`) or drive file."
)
@click.option(
    "--scheduler", default="fcfs", show_default=True, help="Host scheduler (see `headway schedulers`)."
)
@click.option(
    "--queue-depth",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Commands the drive holds at once.",
)
@click.option(
    "--speed",
    type=float,
    default=1.0,
    show_default=True,
    help="Arrival-time scale: 2.0 replays twice as fast.",
)
@output_options
def replay_cmd(
    trace: Path, fmt: str, drive: str, scheduler: str, queue_depth: int, speed: float, **outputs
) -> None:
    """Replay TRACE on a drive with a scheduler."""
    config = {
        "name": f"replay {trace.name}",
        "drive": {"name": drive, "queue_depth": queue_depth},
        "host": {"scheduler": scheduler},
        "workload": {"kind": "trace", "path": os.fspath(trace), "format": fmt, "speed": speed},
    }
    _run_and_report(config, **outputs)
