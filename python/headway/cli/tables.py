"""The command line's tables, built one way so that each reads in an 80-column terminal:
light borders, numbers right-aligned and never cut, text columns wrapped at spaces only
(never a word broken across lines, never cut with an ellipsis). Long headers are
abbreviated by the caller, with a legend in the caption."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

# (header, kind): kind "num" for a right-aligned column kept whole, "text" for one that
# wraps when the terminal is narrow.
Column = Tuple[str, str]


def table(columns: Sequence[Column], title: Optional[str] = None, caption: Optional[str] = None,
          show_header: bool = True):
    from rich import box

    t = _word_table()(title=title, caption=caption, box=box.SIMPLE_HEAD, show_header=show_header,
              caption_justify="left", title_justify="left", pad_edge=False)
    for header, kind in columns:
        if kind == "num":
            t.add_column(header, justify="right", no_wrap=True)
        else:
            t.add_column(header, overflow="fold")
    return t


def _word_table():
    from rich.table import Table

    class WordTable(Table):
        """A text column is never narrower than its longest word, so rich wraps it at
        spaces and never folds a word in two."""

        def add_row(self, *cells, **kwargs):
            super().add_row(*cells, **kwargs)
            for column, cell in zip(self.columns, cells):
                if column.overflow == "fold" and isinstance(cell, str):
                    words = cell.split() + str(column.header).split()
                    column.min_width = max(column.min_width or 0, *(len(w) for w in words), 0)

    return WordTable


def import_rich() -> None:
    """Import the modules :func:`table` and :func:`console` use."""
    from rich import box  # noqa: F401
    from rich.console import Console  # noqa: F401
    from rich.table import Table  # noqa: F401


def console():
    """A console for stdout; its width is the terminal's (or $COLUMNS, else 80 when piped).

    No emoji codes: nothing here means ``:name:`` as an emoji (a trace or drive name may
    hold one), and looking them up loads rich's table of every emoji code, a few ms of
    every command's start."""
    from rich.console import Console

    return Console(highlight=False, emoji=False)


def claims_table(claims, title: str = "Headline"):
    """A reproduction's headline rows (:class:`headway._claims.Claim`): the claim, the
    paper's figure, headway's, and whether headway reproduces it; a row that does not is
    numbered to the docs section explaining why, listed in the caption."""
    notes = list(dict.fromkeys(c.why for c in claims if c.why))
    caption = "repro: whether headway reproduces the paper's figure (partly: same direction, another size; -: the paper gives none)"
    if notes:
        caption += "; why not: " + "  ".join(f"[{i}] {doc}" for i, doc in enumerate(notes, 1))
    t = table([("claim", "text"), ("paper", "text"), ("headway", "num"), ("repro", "text")], title=title,
              caption=caption)
    # The claim gets the larger share of a narrow terminal; the figures keep their width.
    t.expand = True
    t.columns[0].ratio, t.columns[1].ratio = 3, 2
    for c in claims:
        t.add_row(c.claim, c.paper, c.headway, c.verdict + (f" [{notes.index(c.why) + 1}]" if c.why else ""))
    return t
