"""Block traces for analysis: read one in batches (pandas or Arrow), summarise it, convert it.

Every format the simulator replays is read here the same way (``disksim-ascii``,
``disksim-validate``, ``spc``, ``msr``, ``fiu``, ``blkparse``, ``hp-srt``, ``csv``), detected
from the content when ``format`` is omitted, streamed in bounded memory, and decompressed on
the fly (gzip, zstd, xz); so are the ``parquet`` files :func:`convert` writes (their
``process_name`` and ``response_ns`` columns are not read back). See ``docs/traces.md``.

Common keyword arguments:

- ``format``: a format name; default: detected.
- ``csv``: the column mapping of a ``csv`` trace, a dict (``{"time": 0, "address": 2, ...,
  "time_unit": "ms"}``) or the command line's one-string form
  (``"time=0,address=2,size=3,op=4,time_unit=ms"``).
- ``blkparse_event``: ``"Q"`` (queued, default) or ``"D"`` (dispatched).
- filters: ``device`` or ``devices``, ``op`` (``"read"``/``"write"``), ``start_s`` and
  ``end_s`` (seconds after the first record), ``limit``; ``skip_bad=True`` skips and counts
  malformed records instead of raising :class:`headway.TraceError`.

Times in batches count nanoseconds from the trace's first record; sectors are 512 bytes.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Dict, Iterator, Mapping, Optional, Sequence, Union

if TYPE_CHECKING:  # numpy is imported on first use, so `import headway` stays light
    import numpy as np

from headway import _headway
from headway._parquet_trace import as_text_trace, is_parquet
from headway._write import replacing

__all__ = ["read", "stats", "convert", "detect", "csv_map", "FORMATS", "CONVERT_FORMATS"]

PathLike = Union[str, "os.PathLike[str]"]
CsvLike = Union[str, Mapping[str, Any], None]

FORMATS = ["disksim-ascii", "disksim-validate", "spc", "msr", "fiu", "blkparse", "hp-srt", "csv", "parquet"]
CONVERT_FORMATS = ["disksim-ascii", "csv", "parquet"]

_DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe", " ": "whitespace"}


def csv_map(mapping: CsvLike) -> Optional[str]:
    """The one-string form of a csv column mapping (what ``--csv-map`` takes).

    >>> csv_map({"time": 0, "address": 2, "size": 3, "op": 4, "read_values": ["R", "1"]})
    'time=0,address=2,size=3,op=4,read=R|1'
    >>> csv_map({"delimiter": ",", "header": True, "time": "ts", "address": "lba", "size": "n", "op": "rw"})
    'delimiter=comma,header=yes,time=ts,address=lba,size=n,op=rw'
    """
    if mapping is None or isinstance(mapping, str):
        return mapping
    parts = []
    for key, value in mapping.items():
        if key in ("read_values", "write_values"):
            key = key.split("_")[0]
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif key == "delimiter" and isinstance(value, str):
            value = _DELIMITER_NAMES.get(value, value)
        elif isinstance(value, (list, tuple)):
            value = "|".join(str(v) for v in value)
        parts.append(f"{key}={value}")
    return ",".join(parts)


def _options(
    format: Optional[str],
    csv: CsvLike,
    blkparse_event: Optional[str],
    device: Optional[int],
    devices: Optional[Sequence[int]],
    op: Optional[str],
    start_s: Optional[float],
    end_s: Optional[float],
    limit: Optional[int],
    skip_bad: bool,
) -> Dict[str, Any]:
    if format == "auto":
        format = None
    return dict(
        format=format,
        csv_map=csv_map(csv),
        blkparse_event=blkparse_event,
        device=device,
        devices=list(devices) if devices is not None else None,
        op=op,
        start_s=start_s,
        end_s=end_s,
        limit=limit,
        skip_bad=skip_bad,
    )


def detect(path: PathLike) -> str:
    """The format of the trace at ``path``, from its content (raises
    :class:`headway.TraceError` when it cannot be told).

    >>> import headway.traces, tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.trace")
    >>> _ = open(p, "w").write("0.5 0 1000 8 1\\n1.5 0 2000 8 0\\n")
    >>> headway.traces.detect(p)
    'disksim-ascii'
    """
    if is_parquet(path):
        return "parquet"
    return _headway.trace_detect(os.fspath(path))


def _frame_columns(raw: Dict[str, Any]) -> Dict[str, np.ndarray]:
    import numpy as np

    cols = {name: np.frombuffer(buf, dtype=dtype) for name, (dtype, buf) in raw.items()}
    # Unsigned in the core, far below 2**63: signed columns are what pandas and Arrow expect.
    for name in ("time_ns", "lbn"):
        cols[name] = cols[name].view("<i8")
    return cols


def read(
    path: PathLike,
    format: Optional[str] = None,
    *,
    batch_size: int = 65536,
    as_arrow: bool = False,
    csv: CsvLike = None,
    blkparse_event: Optional[str] = None,
    device: Optional[int] = None,
    devices: Optional[Sequence[int]] = None,
    op: Optional[str] = None,
    start_s: Optional[float] = None,
    end_s: Optional[float] = None,
    limit: Optional[int] = None,
    skip_bad: bool = False,
) -> Iterator[Any]:
    """Yield the trace at ``path`` in batches of at most ``batch_size`` records: pandas
    DataFrames, or Arrow record batches with ``as_arrow=True``. Columns: ``time_ns``,
    ``device``, ``lbn``, ``sectors``, ``is_read``, ``process``, ``process_name`` (where the
    format records names), ``response_ns`` (as measured by the trace; null where it has none).

    >>> import headway.traces, tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.trace")
    >>> _ = open(p, "w").write("0.5 0 1000 8 1\\n1.5 0 2000 16 0\\n2.5 0 8 8 1\\n")
    >>> frames = list(headway.traces.read(p, batch_size=2))
    >>> [len(f) for f in frames], list(frames[0].lbn)
    ([2, 1], [1000, 2000])
    """
    with as_text_trace(path, format) as (text, format):
        yield from _read(text, format, batch_size, as_arrow, csv, blkparse_event, device, devices, op,
                         start_s, end_s, limit, skip_bad)


def _read(path, format, batch_size, as_arrow, csv, blkparse_event, device, devices, op, start_s, end_s,
          limit, skip_bad) -> Iterator[Any]:
    reader = _headway.TraceBatchReader(
        path,
        batch_size,
        **_options(format, csv, blkparse_event, device, devices, op, start_s, end_s, limit, skip_bad),
    )
    names: Dict[int, Optional[str]] = {}
    while True:
        raw = reader.next_batch()
        if raw is None:
            return
        cols = _frame_columns(raw)
        response = cols.pop("response_ns")
        mask = response < 0
        process_name = []
        for pid in cols["process"].tolist():
            if pid not in names:
                names[pid] = reader.process_name(pid)
            process_name.append(names[pid])
        if as_arrow:
            import pyarrow as pa

            arrays = {k: pa.array(v) for k, v in cols.items()}
            arrays["process_name"] = pa.array(process_name, type=pa.string())
            arrays["response_ns"] = pa.array(response, mask=mask)
            yield pa.RecordBatch.from_pydict(arrays)
        else:
            import pandas as pd

            frame = pd.DataFrame(cols)
            frame["process_name"] = pd.Series(process_name, dtype="object")
            resp = pd.array(response, dtype="Int64")
            resp[mask] = pd.NA
            frame["response_ns"] = resp
            yield frame


def stats(
    path: PathLike,
    format: Optional[str] = None,
    *,
    as_frame: bool = False,
    csv: CsvLike = None,
    blkparse_event: Optional[str] = None,
    device: Optional[int] = None,
    devices: Optional[Sequence[int]] = None,
    op: Optional[str] = None,
    start_s: Optional[float] = None,
    end_s: Optional[float] = None,
    limit: Optional[int] = None,
    skip_bad: bool = False,
) -> Any:
    """Statistics of the trace at ``path``, read once in bounded memory: a dict with
    ``records``, ``reads``, ``writes``, ``span_s``, ``rate_iops``, ``read_fraction``,
    ``size_sectors``, ``size_histogram``, ``min_sector``, ``max_end_sector`` (512-byte
    sectors), ``seek_distance_sectors``, ``interarrival_ms``, ``processes``, ``devices``, ...
    With ``as_frame=True``, a one-column DataFrame of the scalar metrics instead.

    >>> import headway.traces, tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.trace")
    >>> _ = open(p, "w").write("0.5 0 1000 8 1\\n1.5 0 2000 16 0\\n")
    >>> s = headway.traces.stats(p)
    >>> s["records"], s["reads"], s["max_end_sector"], s["span_s"]
    (2, 1, 2016, 0.001)
    """
    with as_text_trace(path, format) as (text, text_format):
        out = json.loads(
            _headway.trace_stats(
                text,
                **_options(text_format, csv, blkparse_event, device, devices, op, start_s, end_s, limit, skip_bad),
            )
        )
    if text_format != format:  # read through a temporary CSV: report the file asked about
        out["path"], out["format"] = os.fspath(path), "parquet"
    if not as_frame:
        return out
    return stats_frame(out)


def stats_frame(s: Mapping[str, Any]):  # -> pandas.DataFrame
    """The scalar metrics of :func:`stats`' dict as a DataFrame (index: metric)."""
    import pandas as pd

    rows: Dict[str, Any] = {}
    for key, value in s.items():
        if isinstance(value, dict):
            for sub, v in value.items():
                rows[f"{key}.{sub}"] = v
        elif not isinstance(value, list):
            rows[key] = value
    return pd.DataFrame({"value": pd.Series(rows, dtype="object")})


def convert(
    input: PathLike,
    output: PathLike,
    to: str,
    format: Optional[str] = None,
    *,
    csv: CsvLike = None,
    blkparse_event: Optional[str] = None,
    device: Optional[int] = None,
    devices: Optional[Sequence[int]] = None,
    op: Optional[str] = None,
    start_s: Optional[float] = None,
    end_s: Optional[float] = None,
    limit: Optional[int] = None,
    skip_bad: bool = False,
    batch_size: int = 262144,
) -> int:
    """Convert a trace to ``to``: ``disksim-ascii``, ``csv`` (headway's own, readable back
    without a mapping) or ``parquet`` (the columns of :func:`read`). Returns the records
    written. Text outputs ending in ``.gz``, ``.zst`` or ``.xz`` are compressed.

    >>> import headway.traces, tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.trace")
    >>> _ = open(p, "w").write("0.5 0 1000 8 1\\n1.5 0 2000 16 0\\n")
    >>> headway.traces.convert(p, os.path.join(d, "t.csv"), "csv")
    2
    >>> open(os.path.join(d, "t.csv")).read().splitlines()[1]
    '0,0,1000,8,R,0'
    """
    opts = _options(format, csv, blkparse_event, device, devices, op, start_s, end_s, limit, skip_bad)
    if to not in CONVERT_FORMATS:
        from headway.errors import UnknownNameError

        raise UnknownNameError(
            f"unknown output trace format `{to}`; known: {', '.join(CONVERT_FORMATS)}"
        )
    # Written beside OUTPUT and renamed when complete: a bad record or Ctrl-C part-way leaves
    # no half-converted file.
    with replacing(output) as tmp:
        if to == "parquet":
            import pyarrow.parquet as pq

            writer = None
            n = 0
            try:
                for batch in read(
                    input,
                    format,
                    batch_size=batch_size,
                    as_arrow=True,
                    csv=csv,
                    blkparse_event=blkparse_event,
                    device=device,
                    devices=devices,
                    op=op,
                    start_s=start_s,
                    end_s=end_s,
                    limit=limit,
                    skip_bad=skip_bad,
                ):
                    if writer is None:
                        writer = pq.ParquetWriter(os.fspath(tmp), batch.schema)
                    writer.write_batch(batch)
                    n += batch.num_rows
            finally:
                if writer is not None:
                    writer.close()
            if writer is None:
                import pyarrow as pa

                empty = {
                    "time_ns": pa.int64(),
                    "device": pa.uint16(),
                    "lbn": pa.int64(),
                    "sectors": pa.uint32(),
                    "is_read": pa.bool_(),
                    "process": pa.uint32(),
                    "process_name": pa.string(),
                    "response_ns": pa.int64(),
                }
                pq.write_table(pa.schema(empty).empty_table(), os.fspath(tmp))
            return n
        with as_text_trace(input, format) as (text, text_format):
            opts["format"] = text_format
            return _headway.trace_convert(text, os.fspath(tmp), to, **opts)
