"""``headway validate``: replay a real drive's measured trace and score the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import click

from headway._write import replacing, write_text
from headway.cli.paths import json_option, output_file


@click.command("validate", short_help="Replay a real drive's measured trace; score the model.")
@click.argument("trace")
@click.option("--drive", help="Catalog drive or drive file (.parv, .diskspecs, .toml); default: the shipped trace's drive, or the trace file's stem.")
@click.option("--requests-out", type=click.Path(path_type=Path), callback=output_file,
              help="CSV: index,measured_ms,simulated_ms.")
@click.option("--plot", type=click.Path(path_type=Path), callback=output_file,
              help="PNG: measured and simulated access-time CDFs.")
@json_option("Write the report as JSON.")
def validate_cmd(trace: str, drive: Optional[str], requests_out: Optional[Path], plot: Optional[Path],
                 json_path: Optional[Path]) -> None:
    """Replay a DiskSim validate-format TRACE in validate mode and print the demerit.

    TRACE is a file (`R|W Hit|Miss blkno bcount access_us delay_us`), the name of a
    trace shipped with headway (atlas10k, cheetah4lp, hp_c2247a, dec_rz26, st41601n), or
    `all` for the fidelity table over every shipped trace. A file named after a catalog
    drive (e.g. DiskSim's `hp_c2490a.trace`) runs on that drive, and DiskSim 4.0's published
    demerit for the drive is printed beside headway's.
    """
    from headway import validation

    if trace == "all":
        if drive or requests_out or plot:
            raise click.UsageError("`validate all` takes only --json (each trace runs on its own drive)")
        _print_table(validation.validate_all(), json_path)
        return
    v = validation.validate(trace, drive)
    for w in v.warnings:
        click.echo(f"warning: {w}", err=True)
    click.echo(f"drive            {v.drive}")
    click.echo(f"requests         {v.requests}")
    click.echo(f"measured  mean   {v.measured_mean_ms:.3f} ms   sd {v.measured_sd_ms:.3f} ms")
    click.echo(f"simulated mean   {v.simulated_mean_ms:.3f} ms   sd {v.simulated_sd_ms:.3f} ms")
    line = f"demerit          {v.demerit_ms:.4f} ms ({100 * v.demerit_fraction:.2f}% of the measured mean)"
    if v.disksim_demerit_ms is not None:
        line += f"; DiskSim 4.0: {v.disksim_demerit_ms:.3f} ms"
    click.echo(line)
    if v.disksim_demerit_ms is not None:
        # Like with like: DiskSim's figures are computed from its binned distributions.
        click.echo(
            f"  by DiskSim's formula {v.disksim_formula_demerit_ms:.4f} ms "
            f"(the formula of DiskSim's figure, {v.disksim_demerit_ms:.6f} ms)"
        )
    if requests_out:
        with replacing(requests_out) as tmp:
            v.pairs[["index", "measured_ms", "simulated_ms"]].to_csv(tmp, index=False, float_format="%.6f")
    if json_path:
        write_text(json_path, json.dumps(v.report(), indent=2) + "\n")
    if plot:
        v.plot(plot)


def _print_table(table, json_path: Optional[Path]) -> None:
    from headway.cli.tables import console, table as new_table

    t = new_table(
        [("drive", "text"), ("measured", "num"), ("simulated", "num"), ("demerit", "num"),
         ("DiskSim", "num")],
        title="headway against the real drives",
        caption="times in ms, mean ± sd; demerit: RMS horizontal distance between "
        "the measured and simulated access-time CDFs, ms (in brackets: by DiskSim's formula, "
        "its binned, interpolated CDFs, the one its published figures use); "
        "DiskSim: DiskSim 4.0's published demerit (aborts: DiskSim 4.0 stops with an assertion failure in its disk controller "
        "model on this trace, so it has no figure)",
    )
    for r in table.itertuples():
        missing = r.disksim_demerit_ms is None or r.disksim_demerit_ms != r.disksim_demerit_ms
        t.add_row(
            r.drive,
            f"{r.measured_mean_ms:.3f} ± {r.measured_sd_ms:.3f}",
            f"{r.simulated_mean_ms:.3f} ± {r.simulated_sd_ms:.3f}",
            f"{r.demerit_ms:.4f} ({r.disksim_formula_demerit_ms:.4f})",
            "aborts" if missing else f"{r.disksim_demerit_ms:.3f}",
        )
    console().print(t)
    if json_path:
        rows = json.loads(table.to_json(orient="records", double_precision=15))
        write_text(json_path, json.dumps(rows, indent=2) + "\n")
