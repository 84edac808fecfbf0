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
    from headway.cli.tables import console, table

    t = table(
        [("name", "text"), ("GB", "num"), ("RPM", "num"), ("zones", "num"), ("cyl", "num"),
         ("surf", "num"), ("seek ms", "num")],
        title="built-in drives",
        caption="cyl: cylinders, surf: surfaces, seek: mean over random cylinder pairs",
    )
    # Descriptions run to sentences about provenance; the second table shows their title
    # (the part before the first colon), a line each where the numbers leave no room.
    titles = table([("name", "text"), ("drive", "text")],
                   caption="`headway disks --json` has each drive's full description")
    for d in entries:
        t.add_row(
            d["name"],
            f"{d['capacity_bytes'] / 1e9:.2f}",
            f"{d['rpm']:.0f}",
            str(d["zones"]),
            f"{d['cylinders']:,}",
            str(d["surfaces"]),
            f"{d['mean_seek_ms']:.2f}",
        )
        titles.add_row(d["name"], d["description"].split(":")[0])
    out = console()
    out.print(t)
    out.print(titles)


@click.command("schedulers", short_help="List the built-in schedulers and what each does.")
def schedulers_cmd() -> None:
    """List the built-in schedulers, one per line with what each does; then the wrappers,
    each holding another scheduler named in [host.inner]."""
    import shutil
    import textwrap

    rows = _headway.scheduler_info()
    width = max(len(name) for name, _, _ in rows)
    # A summary too long for the terminal wraps under itself ($COLUMNS, else 80 when piped).
    indent = width + 2
    room = max(20, shutil.get_terminal_size().columns - indent)
    for wrappers in (False, True):
        if wrappers:
            click.echo("\nwrappers (each holds another scheduler, named in [host.inner]):")
        for name, wraps, summary in rows:
            if wraps != wrappers:
                continue
            first, *more = textwrap.wrap(summary, room) or [""]
            click.echo(f"{name:<{width}}  {first}")
            for line in more:
                click.echo(" " * indent + line)


@click.command("interfaces")
@click.option("--json", "as_json", is_flag=True, help="Print the interfaces as JSON.")
def interfaces_cmd(as_json: bool) -> None:
    """List the named host interfaces ([drive] interface = "..."), each with its rate and
    the standard it is from; `validated` (the default) is the drive file's own bus."""
    entries = _headway.interfaces()
    if as_json:
        click.echo(json.dumps(entries, indent=2))
        return
    from headway.cli.tables import console, table

    t = table(
        [("name", "text"), ("MB/s", "num"), ("ms/sector", "num"), ("interface", "text"),
         ("source", "text")],
        title="host interfaces",
        caption="[drive] interface = NAME sets the bus time per 512-byte sector; "
        "docs/interfaces.md",
    )
    for i in entries:
        rate = i["payload_mb_s"]
        ms = i["sector_transfer_ms"]
        t.add_row(
            i["name"],
            "drive's" if rate is None else f"{rate:g}",
            "drive's" if ms is None else f"{ms:.5f}",
            i["title"],
            i["source"],
        )
    console().print(t)
