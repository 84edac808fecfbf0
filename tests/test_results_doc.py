"""docs/results.md defines every key of the summary and every column of the records: checked
against what a run actually produces, both ways, so the page cannot drift from the code."""

from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Set

import headway
from conftest import ROOT

DOC = ROOT / "docs" / "results.md"
ROW = re.compile(r"^\| `([^`]+)` \|")


def documented(section: str) -> List[str]:
    """The first-column keys of the table under the `## <section>` heading."""
    text = DOC.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [m.group(1) for line in body.splitlines() if (m := ROW.match(line))]


def split_keys(summary: Dict[str, Any]):
    """The summary's keys, and the keys of the entries of its sections (the `by_*` objects
    keyed by entry name)."""
    top: List[str] = list(summary)
    entry: Set[str] = set()
    for value in summary.values():
        if isinstance(value, dict):
            for item in value.values():
                entry.update(item)
    return top, entry


def a_run():
    # Two named classes, so the records carry every column (class names among them).
    cfg = {"drive": {"name": "elite3"}, "host": {"scheduler": "sptf"}, "output": {"predictions": True},
           "workloads": [{"class": "a", "requests": 100}, {"class": "b", "requests": 100}]}
    return headway.run(cfg, records=True)


def check(section: str, keys: Iterable[str]) -> None:
    keys = list(keys)
    rows = documented(section)
    assert len(rows) == len(set(rows)), f"a key has two rows under `{section}` in docs/results.md"
    missing = [k for k in keys if k not in rows]
    stale = [r for r in rows if r not in keys]
    assert not missing, f"keys with no row under `{section}` in docs/results.md: {missing}"
    assert not stale, f"rows under `{section}` in docs/results.md for keys no run has: {stale}"


def test_every_summary_key_is_defined_and_every_row_is_a_key():
    top, entry = split_keys(a_run().summary.to_dict())
    check("Summary", top)
    # The sections' entries: a drive's carries `utilisation`, a class's `deadline_misses`.
    assert "utilisation" in entry and "deadline_misses" in entry, entry
    check("Summary sections", sorted(entry))


def test_every_record_column_is_defined_and_every_row_is_a_column():
    check("Per-request records", a_run().requests.columns)


def test_every_row_has_a_unit_and_a_definition():
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if ROW.match(line):
            cells = [c.strip() for c in line.strip("|").split("|")]
            assert len(cells) == 3 and all(cells), line
