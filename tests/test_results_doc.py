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


def flat_keys(data: Dict[str, Any], prefix: str = "") -> Iterable[str]:
    """Keys, with nested sections as `section.key`; a section keyed by data (class numbers,
    device names) is written `section.*.key`."""
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            inner = list(value.values())
            if all(isinstance(v, dict) for v in inner):
                keys: Set[str] = set()
                for v in inner:
                    keys.update(v)
                yield name
                yield from (f"{name}.*.{k}" for k in sorted(keys))
            else:
                yield name
                yield from flat_keys(value, f"{name}.")
        else:
            yield name


def a_run():
    cfg = {"drive": {"name": "elite3"}, "host": {"scheduler": "sptf"},
           "workload": {"requests": 200, "interarrival_ms": 8.0}, "output": {"predictions": True}}
    return headway.run(cfg, records=True)


def test_every_summary_key_is_defined_and_every_row_is_a_key():
    keys = list(flat_keys(a_run().summary.to_dict()))
    rows = documented("Summary")
    assert len(rows) == len(set(rows)), "a key has two rows in docs/results.md"
    missing = [k for k in keys if k not in rows]
    stale = [r for r in rows if r not in keys]
    assert not missing, f"summary keys with no row in docs/results.md: {missing}"
    assert not stale, f"rows in docs/results.md for keys the summary no longer has: {stale}"


def test_every_record_column_is_defined_and_every_row_is_a_column():
    columns = list(a_run().requests.columns)
    rows = documented("Per-request records")
    missing = [c for c in columns if c not in rows]
    stale = [r for r in rows if r not in columns]
    assert not missing, f"record columns with no row in docs/results.md: {missing}"
    assert not stale, f"rows in docs/results.md for columns the records no longer have: {stale}"


def test_every_row_has_a_unit_and_a_definition():
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if ROW.match(line):
            cells = [c.strip() for c in line.strip("|").split("|")]
            assert len(cells) == 3 and all(cells), line
