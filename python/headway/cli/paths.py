"""Output paths are checked when the command line is read, before any work: a missing
folder is created (for every output flag alike), and a path that cannot be written is
refused with one keyed line, e.g. ``error: --out /proc/nope: cannot create folder
(No such file or directory)``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import click


class OutputPathError(click.ClickException):
    """An output path that cannot be written; shown as ``error: <flag> <path>: <why>``."""

    def show(self, file=None) -> None:
        click.echo(f"error: {self.message}", err=True)


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def _writable_folder(folder: Path, label: str, itself: bool) -> None:
    """``itself``: the flag names this folder (``--out``), so the message need not repeat it."""
    named = "folder" if itself else f"folder {folder}"
    if folder.exists() and not folder.is_dir():
        raise OutputPathError(f"{label}: {'is a file' if itself else f'{folder} is a file'}, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputPathError(f"{label}: cannot create {named} ({_reason(e)})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputPathError(f"{label}: cannot write in {named} (Permission denied)")


def _label(param: click.Parameter, value: Path) -> str:
    flag = param.opts[0] if isinstance(param, click.Option) else (param.name or "").upper()
    return f"{flag} {value}"


def output_file(ctx: click.Context, param: click.Parameter, value: Optional[Path]) -> Optional[Path]:
    """Click callback for a file to write: its folder exists (created) and is writable, and
    the path is not a folder."""
    if value is None:
        return None
    value = Path(value)
    label = _label(param, value)
    if value.is_dir():
        raise OutputPathError(f"{label}: is a folder; give a file name")
    _writable_folder(value.parent, label, itself=False)
    return value


def output_folder(ctx: click.Context, param: click.Parameter, value: Optional[Path]) -> Optional[Path]:
    """Click callback for a folder to write into: created if missing, and writable."""
    if value is None:
        return None
    value = Path(value)
    _writable_folder(value, _label(param, value), itself=True)
    return value


def json_option(help: str):
    """``--json FILE`` (the parameter ``json_path``), checked like every output file."""
    return click.option("--json", "json_path", type=click.Path(path_type=Path), callback=output_file, help=help)
