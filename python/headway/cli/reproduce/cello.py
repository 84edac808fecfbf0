"""``headway reproduce cello``: Shenoy and Vin's two-level disk scheduling."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from headway.cli.paths import output_folder
from headway.cli.reproduce.outputs import write_outputs
from headway.cli.reproduce.seeding import seed_options


@click.command("cello", short_help="Shenoy and Vin's Cello two-level scheduling (Elite 3).")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), callback=output_folder,
              help="Write mixes.csv, intervals.csv, ledger.csv, headline.json and PNG plots here.")
@click.option("--quick", is_flag=True, help="120 s per run and fewer loads: seconds, not minutes.")
@click.option("--seed", type=int, help="Base seed: the seeds are SEED, SEED+1, ... (default 1).")
@click.option("--duration-s", type=click.FloatRange(min=1.0), help="Simulated seconds per run.")
@click.option("--frames", type=click.Choice(["synthetic", "traces"]), default="synthetic", show_default=True,
              help="Video frame sizes: the synthetic GOP model, or MPEG-4 traces rescaled to the paper's clips.")
@click.option("--traces-dir", type=click.Path(path_type=Path, file_okay=False),
              help="Folder holding the MPEG-4 traces (default: the project's reference data).")
@click.option("--no-plots", is_flag=True, help="CSV and JSON only.")
@seed_options
def cello_cmd(out_dir: Optional[Path], quick: bool, seed: Optional[int], duration_s: Optional[float],
              frames: str, traces_dir: Optional[Path], no_plots: bool, seeds) -> None:
    """Cello on the Seagate Elite 3: video and text clients under Cello, SCAN, EDF,
    SCAN-EDF, D-SCAN and static partitioning (the paper's results 1-12)."""
    from headway.cello import TRACE_FILES, frame_trace_files, reproduce

    files = None
    if frames == "traces":
        files = frame_trace_files(traces_dir)
        if files is None:
            raise click.UsageError(
                f"--frames traces: {', '.join(TRACE_FILES)} not all found in "
                f"{traces_dir or 'the reference data folder'}")
    r = reproduce(quick=quick, seed=seed, duration_s=duration_s, frame_traces=files, seeds=seeds)
    _print(r)
    write_outputs(r, out_dir, no_plots)


def _print(r) -> None:
    from headway._reproduction import interface_line, seeds_line
    from headway.cli.tables import console as new_console, table

    console = new_console()
    m = r.mixes
    op = m[(m.experiment == "video_load") & (m.video_clients == r.options["video_at"])]
    t = table([("policy", "text"), ("util", "num"), ("text mean ms", "num"), ("text p99 ms", "num"),
               ("video late", "num"), ("busy s", "num")],
              title=f"{r.options['text_at']} text + {r.options['video_at']} video clients",
              caption="util: disk busy fraction; video late: fraction of video requests done after their round")
    for row in op.itertuples():
        t.add_row(row.policy, f"{row.utilisation:.3f}", f"{row.text_mean_ms:.1f}", f"{row.text_p99_ms:.1f}",
                  f"{row.video_miss_fraction:.4f}", f"{row.busy_s:.1f}")
    console.print(t)
    console.print()
    from headway.cello import claims
    from headway.cli.tables import claims_table

    console.print(claims_table(claims(r.headline)))
    console.print(interface_line(r.headline))
    console.print(seeds_line(r.options))
