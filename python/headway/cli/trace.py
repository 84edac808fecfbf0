"""``headway trace``: statistics, conversion and format detection of block traces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import click

from headway import traces
from headway._write import write_text
from headway.cli.paths import json_option, output_file
from headway.cli.trace_options import filter_options, parse_devices, source_options


def _kwargs(fmt, csv_map, blkparse_event, device, devices, op, start_s, end_s, limit, skip_bad):
    return dict(
        format=None if fmt == "auto" else fmt,
        csv=csv_map,
        blkparse_event=blkparse_event,
        device=device,
        devices=parse_devices(devices),
        op=op,
        start_s=start_s,
        end_s=end_s,
        limit=limit,
        skip_bad=skip_bad,
    )


@click.group("trace")
def trace_group() -> None:
    """Block traces: statistics, conversion, format detection."""


@trace_group.command("stats", short_help="Counts, rate, read fraction and distributions.")
@click.argument("file", type=click.Path(path_type=Path))
@source_options
@filter_options
@json_option("Write the statistics as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing; only write the JSON asked for.")
def stats_cmd(file: Path, json_path: Optional[Path], quiet: bool, **opts) -> None:
    """Records, span, rate, read fraction and distributions of the trace in FILE."""
    s = traces.stats(file, **_kwargs(**opts))
    if json_path is not None:
        write_text(json_path, json.dumps(s, indent=2) + "\n")
    if not quiet:
        _print_stats(s)


def _number(v: float, decimals: int) -> str:
    """Whole numbers (sector counts, most percentiles of sizes) print as integers."""
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.{decimals}f}"


def _print_stats(s) -> None:
    from rich.markup import escape

    from headway.cli.tables import console as new_console, table

    console = new_console()
    console.print(f"[bold]{escape(str(s['path']))}[/bold] ({s['format']}, compression {s['compression']})")
    t = table([("metric", "text"), ("value", "text")], show_header=False)
    rows = [
        ("records", f"{s['records']:,}"),
        ("reads / writes", f"{s['reads']:,} / {s['writes']:,} (read fraction {s['read_fraction']:.3f})"),
        ("span", f"{s['span_s']:,.3f} s"),
        ("rate", f"{s['rate_iops']:,.1f} IOPS"),
        ("address range", f"sectors {s['min_sector']:,} to {s['max_end_sector']:,} (512 B)"),
        (
            "size histogram",
            "  ".join(f"≤{b['le_sectors']}: {b['count']:,}" for b in s["size_histogram"]) or "-",
        ),
        ("devices", "  ".join(f"{d['device']}: {d['count']:,}" for d in s["devices"]) or "-"),
    ]
    procs = s["processes"]
    if len(procs) > 1 or (procs and procs[0]["pid"] != 0):
        shown = "  ".join(
            f"{p['pid']}{' (' + p['name'] + ')' if p['name'] else ''}: {p['count']:,}" for p in procs[:10]
        )
        more = f"  and {len(procs) - 10} more" if len(procs) > 10 else ""
        rows.append(("processes", shown + more))
    if s["bad_records"]:
        rows.append(("bad records skipped", f"{s['bad_records']:,}; first: {'; '.join(s['bad_examples'])}"))
    for label, value in rows:
        t.add_row(label, escape(value))
    console.print(t)

    # The distributions go down the page (one column each), so the table stays narrow
    # however large the numbers.
    dists = [("size", "sectors", s["size_sectors"], 1), ("seek distance", "sectors", s["seek_distance_sectors"], 1),
             ("inter-arrival", "ms", s["interarrival_ms"], 3)]
    d = table([("", "text"), *[(f"{name}, {unit}", "num") for name, unit, _, _ in dists]],
              caption="seek distance: from the end of a request to the start of the next on the same device")
    for stat in ("mean", "p50", "p90", "p99", "max"):
        d.add_row(stat, *[_number(v[stat], dec) if v["count"] else "-" for _, _, v, dec in dists])
    console.print(d)


@trace_group.command("convert", short_help="Convert a trace to another format.")
@click.argument("input", type=click.Path(path_type=Path))
@click.argument("output", type=click.Path(path_type=Path), callback=output_file)
@click.option(
    "--to",
    "to",
    type=click.Choice(traces.CONVERT_FORMATS),
    required=True,
    help="Output format (csv is headway's own, readable back without a mapping).",
)
@source_options
@filter_options
def convert_cmd(input: Path, output: Path, to: str, **opts) -> None:
    """Convert the trace INPUT to OUTPUT (compressed when OUTPUT ends in .gz, .zst or .xz).

    Times are shifted to start at 0: times in OUTPUT count from the trace's first record
    (from --start, when a window is given). OUTPUT is written whole or not at all."""
    n = traces.convert(input, output, to, **_kwargs(**opts))
    click.echo(f"{n:,} records written to {output}")


@trace_group.command("detect", short_help="Print the format of a trace, from its content.")
@click.argument("file", type=click.Path(path_type=Path))
def detect_cmd(file: Path) -> None:
    """Print the format of the trace in FILE, detected from its content."""
    click.echo(traces.detect(file))
