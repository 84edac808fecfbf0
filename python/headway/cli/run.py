"""``headway run`` (an experiment file, or the built-in default) and ``headway replay``
(a trace on a drive)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import click

from headway.api import run as run_experiment
from headway.cli.report import (
    output_options,
    preload_printer,
    print_summary,
    show_progress,
    write_outputs,
)
from headway.cli.paths import as_path
from headway.cli.trace_options import filter_options, parse_devices, source_options

if TYPE_CHECKING:
    from pathlib import Path


def _run_and_report(
    config, seed, json_path, csv_path, parquet_path, records_path, quiet, no_progress, overrides=None
) -> None:
    progress = show_progress(quiet, no_progress)
    # A progress bar loads rich while the run simulates; without one, so does the summary's
    # printer (headway._preload).
    printer = None if quiet or progress else preload_printer()
    try:
        result = run_experiment(
            config,
            seed=seed,
            records=records_path is not None,
            progress=printer or progress,
            overrides=overrides,
        )
    finally:
        if printer is not None:
            printer.join()
    write_outputs(result, json_path, csv_path, parquet_path, records_path)
    if not quiet:
        print_summary(result)
    # Even with --quiet: a lenient replay must never hide what it skipped.
    for w in result.warnings:
        click.echo(f"warning: {w}", err=True)


# The drive's own queue ordering (DiskSim's usual setup): `run` overrides the file's
# `drive.firmware_scheduler`, `replay` sets it.
firmware_scheduler_option = click.option(
    "--firmware-scheduler",
    metavar="NAME",
    help="Scheduler inside the drive ordering its queue (e.g. fcfs, sptf; with --queue-depth > 1).",
)


@click.command("run", short_help="Run an experiment file, or the built-in default.")
@click.argument("config", required=False, type=click.Path())
@firmware_scheduler_option
@output_options
def run_cmd(config: Optional[str], firmware_scheduler: Optional[str], **outputs) -> None:
    """Run the experiment in CONFIG (TOML), or the built-in default when none is given."""
    overrides = {"drive.firmware_scheduler": firmware_scheduler} if firmware_scheduler else None
    _run_and_report(_config_path(config), overrides=overrides, **outputs)


def _config_path(config: Optional[str]) -> Optional[Path]:
    """A path, never TOML text (``headway.run`` reads a string that looks like TOML as TOML);
    pathlib loads only for a command that takes one."""
    if config is None:
        return None
    from pathlib import Path

    return Path(config)


@click.command("replay", short_help="Replay a block trace on a drive with a scheduler.")
@click.argument("trace", type=click.Path())
@source_options
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
@firmware_scheduler_option
@click.option(
    "--mode",
    type=click.Choice(["open", "closed", "validate"]),
    default="open",
    show_default=True,
    help="open: arrivals at trace times; closed: each process issues its next request its "
    "think time after the previous completes; validate: closed, the whole trace one process.",
)
@click.option(
    "--speed",
    type=float,
    default=1.0,
    show_default=True,
    help="Time scale: 2.0 halves inter-arrival (and think) times.",
)
@filter_options
@click.option("--merge-devices", is_flag=True, help="Replay every trace device onto the drive.")
@click.option(
    "--fit",
    type=click.Choice(["fail", "wrap", "scale", "truncate"]),
    default="fail",
    show_default=True,
    help="Requests past the end of the drive: fail (naming both sizes), wrap, scale or truncate.",
)
@click.option(
    "--volume-sectors",
    type=click.IntRange(min=1),
    help="The trace's address space for --fit scale (default: found by a first pass).",
)
@output_options
def replay_cmd(
    trace: str,
    fmt: str,
    csv_map: Optional[str],
    blkparse_event: Optional[str],
    drive: str,
    scheduler: str,
    queue_depth: int,
    firmware_scheduler: Optional[str],
    mode: str,
    speed: float,
    device: Optional[int],
    devices: Optional[str],
    op: Optional[str],
    start_s: Optional[float],
    end_s: Optional[float],
    limit: Optional[int],
    skip_bad: bool,
    merge_devices: bool,
    fit: str,
    volume_sectors: Optional[int],
    **outputs,
) -> None:
    """Replay TRACE on a drive with a scheduler."""
    if csv_map is not None and fmt == "auto":
        fmt = "csv"
    path, name = as_path(trace)
    workload = {
        "kind": "trace",
        "path": path,
        "format": fmt,
        "mode": mode,
        "speed": speed,
        "fit": fit,
        "csv": csv_map,
        "blkparse_event": blkparse_event,
        "device": device,
        "devices": list(parse_devices(devices)) if devices is not None else None,
        "merge_devices": merge_devices or None,
        "op": op,
        "start_s": start_s,
        "end_s": end_s,
        "limit": limit,
        "volume_sectors": volume_sectors,
        "skip_bad": skip_bad or None,
    }
    config = {
        "name": f"replay {name}",
        "drive": {"name": drive, "queue_depth": queue_depth, "firmware_scheduler": firmware_scheduler},
        "host": {"scheduler": scheduler},
        "workload": {k: v for k, v in workload.items() if v is not None},
    }
    _run_and_report(config, **outputs)
