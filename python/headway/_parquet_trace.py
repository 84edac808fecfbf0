"""Parquet traces (what ``headway trace convert --to parquet`` writes) for the simulator,
whose readers take text: for the length of one read, a Parquet trace is streamed into
headway's own CSV in a temporary folder, and that file is read in its place."""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator, Optional, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]

MAGIC = b"PAR1"
# The columns `headway trace convert --to parquet` writes that the simulator replays.
COLUMNS = ["time_ns", "device", "lbn", "sectors", "is_read", "process"]
HEADER = "time_ns,device,lbn,sectors,op,process\n"


def is_parquet(path: PathLike) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


@contextmanager
def as_text_trace(path: PathLike, format: Optional[str]) -> Iterator[Tuple[str, Optional[str]]]:
    """``(path, format)`` the simulator reads: a Parquet trace (detected, or named with
    ``format="parquet"``) as a temporary headway CSV; any other trace unchanged."""
    if format not in (None, "auto", "parquet") or not is_parquet(path):
        yield os.fspath(path), format
        return
    # Loaded only for a Parquet trace: a replay's start stays as light as it was.
    import tempfile

    with tempfile.TemporaryDirectory(prefix="headway-parquet-") as folder:
        text = os.path.join(folder, os.path.splitext(os.path.basename(os.fspath(path)))[0] + ".csv")
        _write_csv(path, text)
        yield text, "csv"


def _write_csv(parquet: PathLike, out: str) -> None:
    import pyarrow.parquet as pq

    from headway.errors import TraceError

    try:
        f = pq.ParquetFile(os.fspath(parquet))
    except Exception as e:  # noqa: BLE001 - pyarrow's errors have no common base worth naming
        raise TraceError(f"{os.fspath(parquet)}: not a readable Parquet file: {e}") from None
    missing = [c for c in COLUMNS if c not in f.schema_arrow.names]
    if missing:
        raise TraceError(
            f"{os.fspath(parquet)}: a Parquet file without the trace columns headway writes "
            f"(missing: {', '.join(missing)}; expected {', '.join(COLUMNS)})"
        )
    with open(out, "w", encoding="ascii") as text:
        text.write(HEADER)
        for batch in f.iter_batches(columns=COLUMNS, batch_size=65536):
            cols = [batch.column(c).to_pylist() for c in COLUMNS]
            text.writelines(
                f"{t},{d},{lbn},{n},{'R' if r else 'W'},{p or 0}\n" for t, d, lbn, n, r, p in zip(*cols)
            )
