"""Where every ``headway reproduce`` command writes its tables, headline and figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import click


def write_outputs(result: Any, out_dir: Optional[Path], no_plots: bool) -> None:
    """Write ``result``'s CSVs, ``headline.json`` and (unless ``no_plots``) its PNGs into
    ``out_dir``, naming each file written; nothing when no folder was asked for."""
    if out_dir is None:
        return
    for p in result.write(out_dir, plots=not no_plots):
        click.echo(f"wrote {p}")
