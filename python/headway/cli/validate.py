"""``headway validate``: replay a real drive's measured trace and score the model."""

from __future__ import annotations

import csv
import json

import click

from headway import _headway


@click.command("validate")
@click.argument("trace")
@click.option("--drive", help="Catalog drive (default: the shipped trace's drive, or the trace file's stem).")
@click.option("--requests-out", type=click.Path(dir_okay=False), help="CSV: index,measured_ms,simulated_ms.")
@click.option("--plot", type=click.Path(dir_okay=False), help="PNG: measured and simulated access-time CDFs.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write the report as JSON.")
def validate_cmd(trace: str, drive: str | None, requests_out: str | None, plot: str | None, json_path: str | None) -> None:
    """Replay a DiskSim validate-format TRACE in validate mode and print the demerit.

    TRACE is a file (`R|W Hit|Miss blkno bcount access_us delay_us`) or the name of a
    trace shipped with headway (atlas10k, cheetah4lp, hp_c2247a, dec_rz26, st41601n).
    """
    report_json, measured, simulated = _headway.validate(trace, drive)
    report = json.loads(report_json)
    disksim = report.get("disksim_demerit_ms")
    click.echo(f"drive            {report['drive']}")
    click.echo(f"requests         {report['requests']}")
    click.echo(f"measured  mean   {report['measured_mean_ms']:.3f} ms   sd {report['measured_sd_ms']:.3f} ms")
    click.echo(f"simulated mean   {report['simulated_mean_ms']:.3f} ms   sd {report['simulated_sd_ms']:.3f} ms")
    line = f"demerit          {report['demerit_ms']:.4f} ms ({100 * report['demerit_fraction']:.2f}% of the measured mean)"
    if disksim is not None:
        line += f"; DiskSim 4.0: {disksim:.3f} ms"
    click.echo(line)
    if requests_out:
        with open(requests_out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["index", "measured_ms", "simulated_ms"])
            for i, (m, s) in enumerate(zip(measured, simulated)):
                w.writerow([i, f"{m:.6f}", f"{s:.6f}"])
    if json_path:
        with open(json_path, "w") as f:
            json.dump(report, f, indent=2)
    if plot:
        _plot_cdfs(plot, report, measured, simulated)


def _plot_cdfs(path: str, report: dict, measured: list[float], simulated: list[float]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(6, 4))
    for data, label in ((measured, "measured (real drive)"), (simulated, "headway")):
        x = np.sort(np.asarray(data))
        ax.step(x, np.arange(1, len(x) + 1) / len(x), where="post", label=label)
    ax.set_xlabel("access time (ms)")
    ax.set_ylabel("fraction of requests")
    ax.set_title(f"{report['drive']}: demerit {report['demerit_ms']:.3f} ms")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
