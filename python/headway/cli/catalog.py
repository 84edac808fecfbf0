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
    from rich.console import Console
    from rich.table import Table

    table = Table(title="built-in drives")
    for col in ("name", "GB", "RPM", "zones", "cylinders", "surfaces", "mean seek ms"):
        table.add_column(col, justify="left" if col == "name" else "right", no_wrap=True)
    table.add_column("description", min_width=24)
    for d in entries:
        table.add_row(
            d["name"],
            f"{d['capacity_bytes'] / 1e9:.2f}",
            f"{d['rpm']:.0f}",
            str(d["zones"]),
            f"{d['cylinders']:,}",
            str(d["surfaces"]),
            f"{d['mean_seek_ms']:.2f}",
            d["description"],
        )
    Console().print(table)


@click.command("schedulers")
def schedulers_cmd() -> None:
    """List the built-in schedulers, one per line."""
    for name in _headway.schedulers():
        click.echo(name)
