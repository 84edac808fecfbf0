"""``headway serve``: the configured drives as Network Block Device exports, each request
answered when the live simulation completes it (docs/emulation.md, "Serving a block
device")."""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Optional

import click

from headway.cli.paths import json_option, output_file
from headway.cli.report import check_records_path, write_outputs

SOCKET_NAME = "headway.sock"


@click.command("serve", short_help="Serve CONFIG's drives as NBD block devices.")
@click.argument("config", required=False, type=click.Path())
@click.option(
    "--nbd",
    "listen",
    metavar="unix:PATH|tcp:HOST:PORT",
    help="Where to listen: a Unix socket (default: headway.sock here, or in a temporary "
    "folder when this one is not writable) or TCP (tcp:PORT binds 127.0.0.1).",
)
@click.option(
    "--backing",
    type=click.Path(),
    help="Sparse file holding the exports' data (kept between runs); memory when not given.",
)
@json_option("Write the summary, with the pacing error, as a JSON object (on exit and on a signal).")
@click.option(
    "--speed",
    type=click.FloatRange(min=0, min_open=True),
    default=1.0,
    show_default=True,
    help="Simulated time runs this many times as fast as the wall clock.",
)
@click.option(
    "--records",
    "records_path",
    type=click.Path(),
    callback=check_records_path,
    help="Write one row per request (.parquet or .csv) when serving ends.",
)
@click.option(
    "--record-arrivals",
    type=click.Path(),
    callback=output_file,
    help="Write each request as it enters the model, an FIU trace `headway replay --format fiu` replays.",
)
@click.option(
    "--max-connections",
    type=click.IntRange(min=1),
    default=16,
    show_default=True,
    help="Clients served at once; more are refused.",
)
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def serve_cmd(
    config: Optional[str],
    listen: Optional[str],
    backing: Optional[str],
    json_path,
    speed: float,
    records_path,
    record_arrivals,
    max_connections: int,
    quiet: bool,
) -> None:
    """Serve the drives of CONFIG (TOML; the built-in default when none is given) as NBD
    exports, named by device name or index, until Ctrl-C or SIGTERM; the summary is
    written then."""
    from headway import _headway
    from headway._source import source
    from headway.result import Result
    from pathlib import Path

    text, origin = source(Path(config) if config is not None else None)
    if listen is None:
        listen = "unix:" + _default_socket()
    live_line = not quiet and sys.stderr.isatty()

    def on_ready(address: str) -> None:
        if not quiet:
            click.echo(f"headway serve: listening on {address}", err=True)
            if address.startswith("unix:"):
                click.echo(f"  e.g. qemu-io -f raw nbd+unix:///0?socket={address[5:]}", err=True)

    progress = _LiveLine() if live_line else None
    # SIGTERM ends serving as Ctrl-C does: the summary and records are still written.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        summary, columns, meta, interrupted = _headway.serve(
            text, origin, listen, backing, speed, max_connections, records_path is not None,
            os.fspath(record_arrivals) if record_arrivals else None, on_ready, progress,
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
        if progress is not None:
            progress.end()
    result = Result(summary, columns, meta)
    write_outputs(result, json_path, None, None, records_path)
    if not quiet:
        s = result.summary
        p99 = s["pacing_p99_ms"]
        pacing = f"pacing p99 {p99:.3f} ms" if p99 is not None else "no paced replies"
        ended = "stopped by a signal" if interrupted else "stopped"
        click.echo(
            f"headway serve: {ended}; {s['requests']} requests, mean response "
            f"{s['mean_response_ms']:.3f} ms, {pacing}",
            err=True,
        )


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _default_socket() -> str:
    """``headway.sock`` here when this folder is writable and the path is free, else the
    same name in a new temporary folder."""
    if os.access(".", os.W_OK) and not os.path.exists(SOCKET_NAME):
        return SOCKET_NAME
    import tempfile

    return os.path.join(tempfile.mkdtemp(prefix="headway-serve-"), SOCKET_NAME)


class _LiveLine:
    """The progress line on a terminal: IOPS over the last interval, mean response,
    requests in the model, connections."""

    def __init__(self) -> None:
        self.last = (time.monotonic(), 0)

    def __call__(self, completed: int, mean_ms: float, queue: int, connections: int, now_ns: int) -> None:
        t, done = time.monotonic(), completed
        iops = (done - self.last[1]) / max(t - self.last[0], 1e-9)
        self.last = (t, done)
        sys.stderr.write(
            f"\r{iops:8.0f} IOPS  mean {mean_ms:8.3f} ms  queue {queue:4d}  "
            f"connections {connections:3d}  simulated {now_ns / 1e9:9.3f} s"
        )
        sys.stderr.flush()

    def end(self) -> None:
        sys.stderr.write("\n")
