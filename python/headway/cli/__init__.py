"""The ``headway`` command line.

Every input problem (a ``headway.HeadwayError``, or an ``OSError`` for a file) is reported
as one line, ``error: <message>``, with exit code 1; usage errors exit with 2.
"""

from __future__ import annotations

import click

from headway.api import version
from headway.errors import HeadwayError


def one_line(message: str) -> str:
    """Some messages (TOML syntax errors) carry a second line of detail; keep it, on one line."""
    return "; ".join(part.strip() for part in message.splitlines() if part.strip())


class _Headway(click.Group):
    """Turns the simulator's errors into one clear line instead of a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (HeadwayError, OSError) as e:
            click.echo(f"error: {one_line(str(e))}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)


@click.group(cls=_Headway, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version(), prog_name="headway")
def main() -> None:
    """headway: a fast disk-drive simulator and I/O-scheduling framework."""


def _register() -> None:
    # Imported here so each command lives in its own module without import cycles.
    from headway.cli import bench, catalog, extract, reproduce, run, sweep, trace, validate

    main.add_command(run.run_cmd)
    main.add_command(run.replay_cmd)
    main.add_command(catalog.disks_cmd)
    main.add_command(catalog.schedulers_cmd)
    main.add_command(bench.bench_cmd)
    main.add_command(validate.validate_cmd)
    main.add_command(trace.trace_group)
    main.add_command(extract.extract_cmd)
    main.add_command(reproduce.reproduce_group)
    main.add_command(sweep.sweep_cmd)


_register()
