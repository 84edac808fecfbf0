"""``headway run``: an experiment file, or the built-in default."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import click

from headway.cli.report import firmware_scheduler_option, output_options, run_and_report

if TYPE_CHECKING:
    from pathlib import Path


@click.command("run", short_help="Run an experiment file, or the built-in default.")
@click.argument("config", required=False, type=click.Path())
@firmware_scheduler_option
@output_options
def run_cmd(config: Optional[str], firmware_scheduler: Optional[str], **outputs) -> None:
    """Run the experiment in CONFIG (headway TOML, or a DiskSim 4.0 experiment such as
    synthopen.parv), or the built-in default when none is given. What a DiskSim experiment
    sets that headway does not model is listed as warnings, one line per parameter."""
    overrides = {"drive.firmware_scheduler": firmware_scheduler} if firmware_scheduler else None
    run_and_report(_config_path(config), overrides=overrides, **outputs)


def _config_path(config: Optional[str]) -> Optional[Path]:
    """A path, never TOML text (``headway.run`` reads a string that looks like TOML as TOML);
    pathlib loads only for a command that takes one."""
    if config is None:
        return None
    from pathlib import Path

    return Path(config)
