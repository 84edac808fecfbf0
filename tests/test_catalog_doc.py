"""docs/catalog.md has a section for every catalog drive, and its capacity and speed figures
are the catalog's own: checked against `headway.disks()` so the page cannot drift."""

from __future__ import annotations

import re

import headway
from conftest import ROOT

DOC = (ROOT / "docs" / "catalog.md").read_text(encoding="utf-8")


def sections():
    parts = re.split(r"^### (\S+)\n", DOC, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_every_drive_has_a_section_and_every_section_a_drive():
    assert list(sections()) == list(headway.disks()["name"])


def test_figures_match_the_catalog():
    docs = sections()
    for d in headway.disks().itertuples():
        text = " ".join(docs[d.name].split())
        assert f"({d.capacity_sectors:,} sectors" in text, d.name
        assert f"{d.capacity_bytes / 1e9:.2f} GB" in text, d.name
        assert f"{d.rpm:,.0f} RPM" in text, d.name
        assert f"{d.cylinders:,} cylinders" in text, d.name
        assert f"mean seek {d.mean_seek_ms:.2f} ms" in text, d.name
        assert "Parameters:" in text and "Validation:" in text, d.name


def test_validation_figures_are_the_shipped_traces():
    docs = sections()
    from headway import validation

    shipped = set(validation.traces())
    for name, text in docs.items():
        has_figure = "demerit **" in text
        assert has_figure == (name in shipped), name
