"""``headway extract``: calibrate a drive by timing alone, and compare with the truth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import click

from headway._write import write_text
from headway.cli.paths import json_option


@click.command("extract", short_help="Calibrate a drive by timing alone; compare with the truth.")
@click.option("--drive", default="st41601n", show_default=True, help="Catalog drive or drive file.")
@json_option("Also write the extracted table and the comparison as JSON.")
@click.option("--seek-jitter-ms", type=float, help="Calibrate an imperfect drive: extra seek time up to this.")
@click.option("--rotation-drift-ppm", type=float, help="Calibrate an imperfect drive: spindle speed wander.")
@click.option("--recal-interval-s", type=float, help="Calibrate an imperfect drive: the drive moves its heads this often.")
@click.option("--no-paper-min-offset", is_flag=True, help="Skip the paper's per-zone MinOffset line fit (faster).")
@click.option("--device", "device", type=click.Path(dir_okay=False, path_type=Path),
              help="Calibrate this block device or file (O_DIRECT) instead of a simulated drive.")
@click.option("--writable", is_flag=True,
              help="With --device: the calibration may write (zeros) to it; otherwise reads only.")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="With --device: write the drive file (headway TOML) here.")
@click.option("--jitter-us", type=click.FloatRange(min=0, min_open=True),
              help="With --device: the command round trip jitters by about this much (a disk "
                   "behind FUSE and NBD, a virtual disk). Without it the jitter is measured "
                   "(200 back-to-back commands to one sector) before calibrating.")
def extract_cmd(drive: str, json_path: Optional[Path], seek_jitter_ms: Optional[float],
                rotation_drift_ppm: Optional[float], recal_interval_s: Optional[float],
                no_paper_min_offset: bool, device: Optional[Path], writable: bool,
                out: Optional[Path], jitter_us: Optional[float]) -> None:
    """Run the paper's calibration (GeoExtraction, rotation period, MinOffset, delta) against
    DRIVE using timed reads and writes only, and print the extracted table beside the truth.
    With --device, calibrate a real block device or file instead and write a drive file."""
    if device is not None:
        _extract_device(device, writable, out, json_path, jitter_us)
        return
    if writable or out is not None or jitter_us is not None:
        raise click.UsageError("--writable, --out and --jitter-us go with --device")
    from headway.rotational import extract

    imperfections = {k: v for k, v in (("seek_jitter_ms", seek_jitter_ms),
                                       ("rotation_drift_ppm", rotation_drift_ppm),
                                       ("recal_interval_s", recal_interval_s)) if v is not None}
    e = extract(drive, imperfections or None, paper_min_offset=not no_paper_min_offset)
    # The report opens with what was extracted and how (drive, commands, drive time); the
    # wall time is added to that line rather than said again in a line of its own.
    first, _, rest = e.report.partition("\n")
    click.echo(f"{first}; {e.data['wall_s']:.1f} s wall")
    click.echo(rest, nl=False)
    if json_path is not None:
        write_text(json_path, json.dumps(e.data, indent=2) + "\n")
        click.echo(f"wrote {json_path}")


def _extract_device(device: Path, writable: bool, out: Optional[Path],
                    json_path: Optional[Path], jitter_us: Optional[float]) -> None:
    from headway.rotational import extract_device

    e = extract_device(device, writable, jitter_us=jitter_us)
    click.echo(e.report, nl=False)
    if out is not None:
        write_text(out, e.drive_toml)
        click.echo(f"wrote {out}")
    if json_path is not None:
        write_text(json_path, json.dumps(e.data, indent=2) + "\n")
        click.echo(f"wrote {json_path}")
