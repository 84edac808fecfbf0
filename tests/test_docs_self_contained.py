"""A clone stands on its own: no page of documentation points to a file outside the
repository (the project's reference data, specs or design notes, which users do not have).
Facts the docs rely on are stated in them, with papers and DiskSim cited by name."""

from __future__ import annotations

import re

from conftest import ROOT

OUTSIDE = re.compile(r"(\.\./)?shared/(spec|bench|reference|papers)|ARCHITECTURE\.md|\bspec/\w+\.md")


def test_no_doc_names_a_file_outside_the_repository():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("crates/*/catalog/**/*.md"))]
    found = [
        f"{page.relative_to(ROOT)}:{n}: {line.strip()}"
        for page in pages
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not found, "docs naming files outside the repository:\n" + "\n".join(found)
