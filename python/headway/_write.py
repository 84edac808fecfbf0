"""Output files written whole or not at all.

Every file headway writes (JSON, CSV, Parquet, PNG, converted traces) goes through
:func:`replacing`: the writer fills a temporary file in the destination's folder, which is
renamed over the destination only once the writer has finished. A crash, an error or
Ctrl-C part-way leaves the old file (or none), never a truncated one; a rename within one
folder is atomic on POSIX and Windows.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, Union

if TYPE_CHECKING:  # pathlib loads with the first file written: a quiet replay writes none
    from pathlib import Path

PathLike = Union[str, "os.PathLike[str]"]


@contextmanager
def replacing(path: PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` to write to; on a normal exit it replaces
    ``path``, on any exception (``KeyboardInterrupt`` included) it is removed.

    The temporary name ends with the destination's name, so writers that choose a format or
    a compression from the extension (pyarrow, matplotlib, the trace writers) see the same
    one.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "a.txt")
    >>> with replacing(p) as tmp:
    ...     _ = tmp.write_text("whole")
    >>> open(p).read(), os.listdir(d)
    ('whole', ['a.txt'])
    """
    from pathlib import Path

    path = Path(path)
    tmp = _create_beside(path)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _create_beside(path: Path) -> Path:
    """A new, empty file in ``path``'s folder, named ``.partial-<random>-<name>``, created with
    the permissions a plain ``open`` would give (0666 less the umask)."""
    import secrets  # here, not at the top: it pulls in `random` and `hashlib`

    while True:
        tmp = path.parent / f".partial-{secrets.token_hex(4)}-{path.name}"
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return tmp
        except FileExistsError:
            continue


def write_text(path: PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through :func:`replacing`."""
    with replacing(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
