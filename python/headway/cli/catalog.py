"""``headway disks`` and ``headway schedulers``: what is built in."""

from __future__ import annotations

import json

import click

from headway import _headway


@click.command("disks")
@click.option("--json", "as_json", is_flag=True, help="Print the catalog as JSON.")
def disks_cmd(as_json: bool) -> None:
    """List the built-in drives."""
    entries = _headway.disks()
    if as_json:
        click.echo(json.dumps(entries, indent=2))
        return
    from rich import box
    from rich.console import Console
    from rich.table import Table

    rows = [
        (
            d["name"],
            f"{d['capacity_bytes'] / 1e9:.2f}",
            f"{d['rpm']:.0f}",
            str(d["zones"]),
            f"{d['cylinders']:,}",
            str(d["surfaces"]),
            f"{d['mean_seek_ms']:.2f}",
            # Descriptions run to sentences about provenance (`--json` has them whole); the
            # table shows their title, the part before the first colon.
            d["description"].split(":")[0],
        )
        for d in entries
    ]
    table = Table(
        title="built-in drives",
        caption="cyl: cylinders, surf: surfaces, seek: mean over random cylinder pairs",
        box=box.SIMPLE_HEAD,
    )
    headers = ("name", "GB", "RPM", "zones", "cyl", "surf", "seek ms")
    widths = [max([len(col)] + [len(r[i]) for r in rows]) for i, col in enumerate(headers)]
    for i, col in enumerate(headers):
        table.add_column(col, justify="left" if i == 0 else "right", no_wrap=True, min_width=widths[i])
    # The title column takes what the numbers leave (padding and a separator per column).
    console = Console()
    room = max(8, min(40, console.width - sum(widths) - 3 * (len(headers) + 1)))
    table.add_column("drive", no_wrap=True)
    for row in rows:
        title = row[-1] if len(row[-1]) <= room else row[-1][: room - 1] + "…"
        table.add_row(*row[:-1], title)
    console.print(table)


@click.command("schedulers")
def schedulers_cmd() -> None:
    """List the built-in schedulers, one per line with what each does. Wrappers (marked
    `wraps`) hold another scheduler, named in [host.inner]."""
    rows = _headway.scheduler_info()
    width = max(len(name) for name, _, _ in rows)
    for name, wraps, summary in rows:
        tag = "wraps " if wraps else "      "
        click.echo(f"{name:<{width}}  {tag}{summary}")
