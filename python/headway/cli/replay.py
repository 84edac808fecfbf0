"""``headway replay``: a trace on a drive (in a module of its own, so that a replay does not
build every `run` flag too)."""

from __future__ import annotations

from typing import Optional

import click

from headway._parquet_trace import as_text_trace
from headway.cli.paths import as_path
from headway.cli.report import firmware_scheduler_option, output_options, run_and_report
from headway.cli.trace_options import filter_options, parse_devices, source_options


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
@click.option(
    "--parv",
    type=click.Path(),
    help="Replay on this DiskSim 4.0 experiment's whole system (its disks, arrays and driver "
    "scheduler; its I/O mappings send each trace device to its disk) instead of --drive.",
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
    parv: Optional[str],
    **outputs,
) -> None:
    """Replay TRACE on a drive with a scheduler, or with --parv on a DiskSim experiment's
    whole system."""
    if csv_map is not None and fmt == "auto":
        fmt = "csv"
    path, name = as_path(trace)
    with as_text_trace(path, fmt) as (path, fmt):
        if parv is not None:
            _replay_parv(parv, path, fmt, csv_map, blkparse_event, mode, speed, device, devices, op, start_s,
                         end_s, limit, skip_bad, merge_devices, fit, volume_sectors, outputs)
            return
        _replay(path, name, fmt, csv_map, blkparse_event, drive, scheduler, queue_depth, firmware_scheduler, mode,
                speed, device, devices, op, start_s, end_s, limit, skip_bad, merge_devices, fit, volume_sectors,
                outputs)


def _replay_parv(parv, path, fmt, csv_map, blkparse_event, mode, speed, device, devices, op, start_s, end_s,
                 limit, skip_bad, merge_devices, fit, volume_sectors, outputs) -> None:
    import os
    from pathlib import Path

    if device is not None or devices is not None or merge_devices:
        raise click.UsageError(
            "--parv sends each trace device to the disk the experiment's I/O mappings name; "
            "--device, --devices and --merge-devices do not apply"
        )
    trace = _trace_fields(os.path.abspath(path), fmt, mode, speed, fit, csv_map, blkparse_event, op, start_s,
                          end_s, limit, volume_sectors, skip_bad)
    run_and_report(Path(parv), trace={k: v for k, v in trace.items() if v is not None}, **outputs)


def _trace_fields(path, fmt, mode, speed, fit, csv_map, blkparse_event, op, start_s, end_s, limit,
                  volume_sectors, skip_bad) -> dict:
    """How to read and pace the trace: the keys a trace workload and a ``--parv`` replay share."""
    return {
        "path": path,
        "format": fmt,
        "mode": mode,
        "speed": speed,
        "fit": fit,
        "csv": csv_map,
        "blkparse_event": blkparse_event,
        "op": op,
        "start_s": start_s,
        "end_s": end_s,
        "limit": limit,
        "volume_sectors": volume_sectors,
        "skip_bad": skip_bad or None,
    }


def _replay(path, name, fmt, csv_map, blkparse_event, drive, scheduler, queue_depth, firmware_scheduler, mode,
            speed, device, devices, op, start_s, end_s, limit, skip_bad, merge_devices, fit, volume_sectors,
            outputs) -> None:
    workload = {
        "kind": "trace",
        **_trace_fields(path, fmt, mode, speed, fit, csv_map, blkparse_event, op, start_s, end_s, limit,
                        volume_sectors, skip_bad),
        "device": device,
        "devices": list(parse_devices(devices)) if devices is not None else None,
        "merge_devices": merge_devices or None,
    }
    config = {
        "name": f"replay {name}",
        "drive": {"name": drive, "queue_depth": queue_depth, "firmware_scheduler": firmware_scheduler},
        "host": {"scheduler": scheduler},
        "workload": {k: v for k, v in workload.items() if v is not None},
    }
    run_and_report(config, **outputs)
