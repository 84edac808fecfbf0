"""The run summary as plain text, byte for byte what ``rich`` prints for it when the output
is not a terminal and every line fits: a one-request replay then does not pay for importing
``rich`` (about 35 ms, half the command's fixed cost). Anything else (a terminal, where rich
adds bold; a word longer than the width, which rich folds; a table wider than the width;
text rich might read as markup or an emoji code) goes to rich as before."""

from __future__ import annotations

import os
import re
import sys
from typing import List, Optional, Sequence, Tuple

# rich reads `:name:` as an emoji code; such text is left to rich.
_EMOJI_LIKE = re.compile(r":\S*:")
# A word and the whitespace after it, as rich splits text to wrap it.
_WORD = re.compile(r"\s*\S+\s*")


def _wrap(text: str, width: int) -> Optional[List[str]]:
    """`text` wrapped at word boundaries as rich wraps it (a line keeps the space after its
    last word unless that runs past `width`); None if a word is longer than `width` (rich
    folds it)."""
    lines: List[str] = []
    line = ""
    for word in _WORD.findall(text):
        length = len(word.rstrip())
        if length > width:
            return None
        if width - len(line) >= length or not line:
            line += word
        else:
            lines.append(line)
            line = word
    lines.append(line)
    return [ln if len(ln) <= width else ln[:width] + ln[width:].rstrip() for ln in lines]


def _rich_width() -> int:
    """The width rich's `Console()` uses off a terminal: $COLUMNS, else the first of stdin,
    stdout and stderr that is a terminal, else 80."""
    width = 0
    for fd in (0, 1, 2):
        try:
            width = os.get_terminal_size(fd)[0]
        except (AttributeError, ValueError, OSError):
            continue
        break
    columns = os.environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        width = int(columns)
    return width or 80


def _plain_output() -> bool:
    """Whether rich would write no escape codes to stdout."""
    env = os.environ
    if "TTY_COMPATIBLE" in env or "FORCE_COLOR" in env or "IPython" in sys.modules:
        return False
    isatty = getattr(sys.stdout, "isatty", None)
    try:
        return isatty is not None and not isatty()
    except ValueError:
        return True


def print_plain(title: str, line: str, rows: Sequence[Tuple[str, str, str]]) -> bool:
    """Print `title`, `line` and `rows` (label, right-aligned number, unit) as rich's
    borderless three-column table would; False (nothing printed) when rich must do it."""
    text = [title, line] + [cell for row in rows for cell in row]
    if not _plain_output() or not all(t.isascii() and "\t" not in t for t in text):
        return False
    if "[" in title or any(_EMOJI_LIKE.search(t) for t in text):
        return False
    # Single-spaced lines only: rich's handling of other whitespace is not copied here.
    if any(" ".join(t.split()) != t for t in (title, line)):
        return False
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    # Edge space, cells separated by a padding space, a blank rule and a padding space.
    table_width = 1 + widths[0] + 3 + widths[1] + 3 + widths[2] + 1
    width = _rich_width()
    title_lines, text_lines = _wrap(title, width), _wrap(line, width)
    if title_lines is None or text_lines is None or table_width > width:
        return False
    blank = " " * table_width
    out = title_lines + text_lines + [blank]
    for label, value, unit in rows:
        out.append(f" {label.ljust(widths[0])}   {value.rjust(widths[1])}   {unit.ljust(widths[2])} ")
    out.append(blank)
    sys.stdout.write("\n".join(out) + "\n")
    return True
