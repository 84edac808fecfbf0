"""Paths on the command line.

Output paths are checked when the command line is read, before any work: a missing
folder is created (for every output flag alike), and a path that cannot be written is
refused with one keyed line, e.g. ``error: --out /proc/nope: cannot create folder
(No such file or directory)``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional, Tuple

import click

if TYPE_CHECKING:  # pathlib loads when a path is given (a replay of a plain path needs none)
    from pathlib import Path


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


def output_file(ctx: click.Context, param: click.Parameter, value: Optional[str | Path]) -> Optional[Path]:
    """Click callback for a file to write (given as typed, or as a ``Path``): its folder
    exists (created) and is writable, and the path is not a folder."""
    if value is None:
        return None
    from pathlib import Path

    value = Path(value)
    label = _label(param, value)
    if value.is_dir():
        raise OutputPathError(f"{label}: is a folder; give a file name")
    _writable_folder(value.parent, label, itself=False)
    return value


def output_folder(ctx: click.Context, param: click.Parameter, value: Optional[str | Path]) -> Optional[Path]:
    """Click callback for a folder to write into: created if missing, and writable."""
    if value is None:
        return None
    from pathlib import Path

    value = Path(value)
    _writable_folder(value, _label(param, value), itself=True)
    return value


def json_option(help: str):
    """``--json FILE`` (the parameter ``json_path``), checked like every output file."""
    return click.option("--json", "json_path", type=click.Path(), callback=output_file, help=help)


def as_path(text: str) -> Tuple[str, str]:
    """``(os.fspath(Path(text)), Path(text).name)``: the path as pathlib writes it, and its
    last part.

    A path already written that way (the usual case: no empty or ``.`` parts, no slash at
    the end) is returned as it is, without loading pathlib (about 8% of a short replay's
    instructions, with the ``urllib.parse`` it imports); any other goes through pathlib.
    tests/test_cli_paths.py holds this equal to pathlib on every path it generates."""
    parts = text.split("/")
    if os.sep == "/" and os.altsep is None and text and parts[0] != ".":
        if all(part not in ("", ".") for part in parts[1:]):
            return text, parts[-1]
    from pathlib import Path

    path = Path(text)
    return os.fspath(path), path.name
