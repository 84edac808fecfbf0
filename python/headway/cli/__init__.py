"""The ``headway`` command line.

Every input problem (a ``headway.HeadwayError``, or an ``OSError`` for a file) is reported
as one line, ``error: <message>``, with exit code 1; usage errors (a bad option value, an
unknown command) are the same one line, naming the command's ``--help``, with exit code 2.
"""

from __future__ import annotations

import atexit
import os
import sys

from headway import _gc

# Every command's start, `--help` included, loads these; see headway._gc.
with _gc.paused():
    import importlib
    from typing import Dict, List, Optional, Tuple

    import click

    from headway.errors import HeadwayError

# name -> (module under headway.cli, attribute, one-line help for `headway --help`). Commands
# are imported only when run, so `headway --help` and a small replay do not pay for every
# command's imports; tests check these lines against the commands' own help.
COMMANDS: Dict[str, Tuple[str, str, str]] = {
    "bench": ("bench", "bench_cmd", "Time the reference benchmark, and the ratio to DiskSim."),
    "disks": ("catalog", "disks_cmd", "List the built-in drives."),
    "extract": ("extract", "extract_cmd", "Calibrate a drive by timing alone and compare with the truth."),
    "interfaces": ("catalog", "interfaces_cmd", "List the named host interfaces and their sources."),
    "replay": ("replay", "replay_cmd", "Replay TRACE on a drive with a scheduler."),
    "reproduce": ("reproduce", "reproduce_group", "Reproduce a paper's evaluation as tables (CSV) and plots (PNG)."),
    "run": ("run", "run_cmd", "Run the experiment in CONFIG (TOML), or the built-in default."),
    "serve": ("serve", "serve_cmd", "Serve CONFIG's drives as NBD block devices, paced by the model."),
    "schedulers": ("catalog", "schedulers_cmd", "List the built-in schedulers, one per line."),
    "sweep": ("sweep", "sweep_cmd", "Run a parameter sweep, locally or on a Dask cluster."),
    "trace": ("trace", "trace_group", "Block traces: statistics, conversion, format detection."),
    "validate": ("validate", "validate_cmd", "Replay a real drive's measured trace and print the demerit."),
}


def one_line(message: str) -> str:
    """Some messages (TOML syntax errors) carry a second line of detail; keep it, on one line."""
    return "; ".join(part.strip() for part in message.splitlines() if part.strip())


class _Headway(click.Group):
    """Loads each command on first use, and turns the simulator's errors into one clear line
    instead of a traceback."""

    def list_commands(self, ctx: click.Context) -> List[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> Optional[click.Command]:
        if name not in COMMANDS:
            return None
        module, attr, _ = COMMANDS[name]
        with _gc.paused():
            return getattr(importlib.import_module(f"headway.cli.{module}"), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][2]) for name in self.list_commands(ctx)])

    def make_context(self, info_name, args, parent=None, **extra) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.ClickException as e:  # an option of `headway` itself
            _usage_error(e)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except click.ClickException as e:  # a subcommand's arguments, an unknown command
            _usage_error(e)
        except (HeadwayError, OSError) as e:
            click.echo(f"error: {one_line(str(e))}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)


def _usage_error(e: click.ClickException):
    """Click's usage errors in headway's one style: ``error: <message>`` (lower case, where
    to find the usage) instead of a usage block and a capitalised ``Error:``."""
    message = one_line(e.format_message()).rstrip(".")
    if message[:1].isupper() and message[1:2].islower():  # click's "Invalid value", not a metavar
        message = message[:1].lower() + message[1:]
    ctx = getattr(e, "ctx", None)
    if ctx is not None:
        message += f" (see `{ctx.command_path} --help`)"
    click.echo(f"error: {message}", err=True)
    sys.exit(e.exit_code)


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from headway.api import version

        click.echo(f"headway, version {version()}")
        ctx.exit()


@click.group(cls=_Headway, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
def main() -> None:
    """headway: a fast disk-drive simulator and I/O-scheduling framework."""


def script() -> None:
    """The installed ``headway`` command (and ``python -m headway``): :func:`main`, then a
    quick exit.

    Once ``main`` is done, so is the command: its output printed, its files closed and moved
    into place. The interpreter would then take down every module and object one by one,
    about 9 ms of CPU (a ninth of a small replay's whole time) that nothing can observe;
    exit handlers still run and output is flushed. A command that leaves Python threads running,
    or exits with a message rather than a status, exits the usual way."""
    try:
        main()
        code = 0
    except SystemExit as e:
        threading = sys.modules.get("threading")
        if not (e.code is None or isinstance(e.code, int)) or (
            threading is not None and threading.active_count() > 1
        ):
            raise
        code = e.code or 0
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        # A closed pipe (or no stdout at all): the interpreter deals with it as it always does.
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)
