"""What `run` and `replay` share: the flags, the run itself, and how its result reaches the
user (a summary table, and files on request)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Optional

import click

from headway import _gc
from headway._preload import Preload
from headway._write import replacing, write_text
from headway.api import run as run_experiment
from headway.cli.paths import json_option, output_file
from headway.result import Result

if TYPE_CHECKING:
    from pathlib import Path

RECORD_SUFFIXES = (".parquet", ".csv")


def check_records_path(ctx: click.Context, param: click.Parameter, value: Optional[str]) -> Optional[Path]:
    """Reject an unsupported records file type before spending time on the run."""
    if value is None:
        return None
    from pathlib import Path

    path = Path(value)
    if path.suffix.lower() not in RECORD_SUFFIXES:
        raise click.BadParameter(f"{path}: records are written as .parquet or .csv")
    return output_file(ctx, param, path)


def output_options(f):
    """The output flags shared by `run` and `replay`."""
    decorators = [
        click.option("--seed", type=int, help="Override the experiment's seed."),
        json_option("Write the flat summary as a JSON object."),
        click.option(
            "--csv",
            "csv_path",
            type=click.Path(),
            callback=output_file,
            help="Write the summary as a one-row CSV.",
        ),
        click.option(
            "--parquet",
            "parquet_path",
            type=click.Path(),
            callback=output_file,
            help="Write the summary as a one-row Parquet file.",
        ),
        click.option(
            "--records",
            "records_path",
            type=click.Path(),
            callback=check_records_path,
            help="Write one row per request (.parquet or .csv).",
        ),
        click.option("--quiet", "-q", is_flag=True, help="Print nothing; only write the files asked for."),
        click.option("--no-progress", is_flag=True, help="No progress bar."),
    ]
    for d in reversed(decorators):
        f = d(f)
    return f


# The drive's own queue ordering (DiskSim's usual setup): `run` overrides the file's
# `drive.firmware_scheduler`, `replay` sets it.
firmware_scheduler_option = click.option(
    "--firmware-scheduler",
    metavar="NAME",
    help="Scheduler inside the drive ordering its queue (e.g. fcfs, sptf; with --queue-depth > 1).",
)


def run_and_report(
    config, seed, json_path, csv_path, parquet_path, records_path, quiet, no_progress, overrides=None,
    trace=None,
) -> None:
    """Run ``config`` and report on it as the output flags (:func:`output_options`) ask."""
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
            trace=trace,
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


def show_progress(quiet: bool, no_progress: bool) -> bool:
    return not (quiet or no_progress) and sys.stderr.isatty()


def write_outputs(
    result: Result,
    json_path: Optional[Path],
    csv_path: Optional[Path],
    parquet_path: Optional[Path],
    records_path: Optional[Path],
) -> None:
    if json_path is not None:
        write_text(json_path, result.to_json(indent=2) + "\n")
    summary = result.summary.to_dict()
    if csv_path is not None:
        import csv

        with replacing(csv_path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(summary))
            w.writeheader()
            w.writerow(summary)
    if parquet_path is not None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        with replacing(parquet_path) as tmp:
            pq.write_table(pa.table({k: [v] for k, v in summary.items()}), tmp)
    if records_path is not None:
        with replacing(records_path) as tmp:
            if records_path.suffix.lower() == ".parquet":
                import pyarrow.parquet as pq

                pq.write_table(result.to_arrow(), tmp)
            else:
                result.requests.to_csv(tmp, index=False)


def preload_printer() -> Preload:
    """A progress hook that imports what :func:`print_summary` needs while a long run
    simulates (rich: about a twentieth of a 1M-request replay's time); join it before
    printing."""
    return Preload(_import_printer, "import-summary-printer")


def _import_printer() -> None:
    import rich.markup  # noqa: F401

    from headway.cli.tables import import_rich

    import_rich()


def print_summary(result: Result) -> None:
    with _gc.paused():  # rich's modules, when the preload has not loaded them
        _import_printer()
    from rich.markup import escape

    from headway.cli.tables import console as new_console, table

    s, m = result.summary, result.meta
    console = new_console()
    # Long lines wrap at word boundaries (docs/results.md defines every key).
    console.print(f"[bold]{escape(m.get('name') or 'experiment')}[/bold]")
    devices = m.get("devices") or []
    where = (f"devices {', '.join(devices)} (each below)" if len(devices) > 1
             else f"drive {m['drive']} (queue depth {m['queue_depth']})")
    console.print(f"{where}, scheduler {m['scheduler']}, seed {m['seed']}", markup=False)
    console.print(f"{m['end_ns'] / 1e9:,.1f} s simulated in {m['sim_wall_s']:.2f} s", markup=False)
    t = table([("metric", "text"), ("value", "num"), ("unit", "text")], show_header=False)
    rows = [
        ("requests", f"{s['requests']:,}", ""),
        ("throughput", f"{s['throughput_iops']:,.1f}", "IOPS"),
        ("throughput", f"{s['throughput_mb_s']:,.3f}", "MB/s"),
        ("utilisation", f"{s['utilisation']:.3f}", "busy fraction"),
    ]
    for label, key in (
        ("mean", "mean"),
        ("p50", "p50"),
        ("p90", "p90"),
        ("p99", "p99"),
        ("p99.9", "p999"),
        ("max", "max"),
    ):
        rows.append((f"response {label}", f"{s[f'{key}_response_ms']:,.3f}", "ms"))
    rows += [
        ("service mean", f"{s['mean_service_ms']:,.3f}", "ms"),
        ("seek mean", f"{s['mean_seek_ms']:,.3f}", "ms"),
        ("rotation mean", f"{s['mean_rotate_ms']:,.3f}", "ms"),
        ("transfer mean", f"{s['mean_transfer_ms']:,.3f}", "ms"),
        ("queue length mean", f"{s['mean_queue_length']:,.2f}", "requests"),
        ("queue length max", f"{s['max_queue_length']:,}", "requests"),
    ]
    for row in rows:
        t.add_row(*row)
    console.print(t)
    for key, title in SECTIONS:
        section = s.get(key) or {}
        if len(section) > 1:
            console.print()
            console.print(_section_table(section, title))


# The summary's breakdowns, shown when a run has more than one of what they break down by
# (docs/results.md defines their fields).
SECTIONS = (("by_device", "by device"), ("by_class", "by class"), ("by_process", "by process"),
            ("by_origin", "by origin (who made the requests)"))
# Rows shown of one breakdown; all of them are in --json and Result.by_*.
SECTION_ROWS = 12


def _section_table(section, title: str):
    from headway.cli.tables import table

    first = next(iter(section.values()))
    extra = [(k, h) for k, h in (("utilisation", "util"), ("deadline_misses", "misses")) if k in first]
    names = sorted(section, key=lambda n: -section[n]["requests"])
    more = len(names) - SECTION_ROWS
    caption = f"{more} more with fewer requests in --json" if more > 0 else None
    t = table([("", "text"), ("requests", "num"), ("mean ms", "num"), ("p99 ms", "num"), ("max ms", "num"),
               ("busy s", "num"), *[(h, "num") for _, h in extra]], title=title, caption=caption)
    for name in names[:SECTION_ROWS]:
        v = section[name]
        cells = [f"{v['requests']:,}", f"{v['mean_response_ms']:,.2f}", f"{v['p99_response_ms']:,.2f}",
                 f"{v['max_response_ms']:,.2f}", f"{v['busy_s']:,.2f}"]
        cells += [f"{v[k]:.3f}" if k == "utilisation" else f"{v[k]:,}" for k, _ in extra]
        t.add_row(name, *cells)
    return t
