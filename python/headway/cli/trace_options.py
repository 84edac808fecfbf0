"""The flags that say how to read a trace and which records to take, shared by the `trace`
tools and `replay`: in a module of their own so that `replay` does not build every `trace`
command to get them."""

from __future__ import annotations

from typing import Optional, Tuple

import click

from headway.traces import FORMATS

FORMAT_CHOICES = ["auto", *FORMATS]


def source_options(f):
    """How to read a trace: the flags `trace stats`, `trace convert` and `replay` share."""
    decorators = [
        click.option(
            "--format",
            "fmt",
            type=click.Choice(FORMAT_CHOICES),
            metavar="FORMAT",
            default="auto",
            show_default=True,
            help=f"Trace format: {', '.join(FORMAT_CHOICES)} (auto: detected from the content).",
        ),
        click.option(
            "--csv-map",
            help="Column mapping of a csv trace, e.g. "
            "'delimiter=whitespace,time=0,device=1,address=2,size=3,op=4,time_unit=ms,"
            "address_unit=bytes,size_unit=bytes,read=1,write=0' (see docs/traces.md).",
        ),
        click.option(
            "--blkparse-event",
            type=click.Choice(["Q", "D"]),
            help="blkparse: replay queued (Q, default) or dispatched (D) events.",
        ),
    ]
    for d in reversed(decorators):
        f = d(f)
    return f


def filter_options(f):
    """Which records: the filters shared by the trace tools and `replay`."""
    decorators = [
        click.option("--device", type=click.IntRange(0, 65535), help="Only this trace device."),
        click.option(
            "--devices",
            help="Only these trace devices, comma-separated (merged onto the drive in a replay).",
        ),
        click.option("--op", type=click.Choice(["read", "write"]), help="Only reads or only writes."),
        click.option("--start", "start_s", type=float, help="Window start, seconds after the first record."),
        click.option("--end", "end_s", type=float, help="Window end, seconds after the first record."),
        click.option("--limit", type=click.IntRange(min=1), help="Only the first N records (after filters)."),
        click.option(
            "--skip-bad",
            is_flag=True,
            help="Skip malformed records, count them and report them at the end, instead of failing.",
        ),
    ]
    for d in reversed(decorators):
        f = d(f)
    return f


def parse_devices(devices: Optional[str]) -> Optional[Tuple[int, ...]]:
    if devices is None:
        return None
    try:
        out = tuple(int(d) for d in devices.split(",") if d.strip())
    except ValueError:
        raise click.BadParameter(f"`{devices}`: expected device numbers separated by commas") from None
    if not out or any(not 0 <= d <= 65535 for d in out):
        raise click.BadParameter(f"`{devices}`: expected device numbers 0 to 65535")
    return out
