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
