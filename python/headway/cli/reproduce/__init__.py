"""``headway reproduce NAME``: a research system's headline results with one command.

Each paper's command lives in its own module here and is imported only when run; add a paper
by adding its module and one line to ``PAPERS``.
"""

from __future__ import annotations

import importlib
from typing import Dict, List, Optional, Tuple

import click

# name -> (module under headway.cli.reproduce, attribute, one-line help)
PAPERS: Dict[str, Tuple[str, str, str]] = {
    "rotational": ("rotational", "rotational_cmd", "Huang and Chiueh's rotation-aware scheduling (ST41601N)."),
    "cello": ("cello", "cello_cmd", "Shenoy and Vin's Cello two-level scheduling (Elite 3)."),
    "freeblock": ("freeblock", "freeblock_cmd", "Lumb, Schindler and Ganger's freeblock scheduling (Atlas 10K)."),
    "anticipatory": ("anticipatory", "anticipatory_cmd", "Iyer and Druschel's anticipatory scheduling (IDE stand-in)."),
    "flash-backed": ("flash_backed", "flash_backed_cmd", "Bisson and Brandt's flash-backed I/O on hybrid disks."),
    "rebuild": ("rebuild", "rebuild_cmd", "RAID 5 rebuild policies: rebuild time against foreground impact."),
}


class _Papers(click.Group):
    def list_commands(self, ctx: click.Context) -> List[str]:
        return sorted(PAPERS)

    def get_command(self, ctx: click.Context, name: str) -> Optional[click.Command]:
        if name not in PAPERS:
            return None
        module, attr, _ = PAPERS[name]
        return getattr(importlib.import_module(f"headway.cli.reproduce.{module}"), attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Papers"):
            formatter.write_dl([(name, PAPERS[name][2]) for name in self.list_commands(ctx)])


@click.group("reproduce", cls=_Papers, short_help="Reproduce a paper's evaluation as tables and plots.")
def reproduce_group() -> None:
    """Reproduce a paper's evaluation as tables (CSV) and plots (PNG)."""
