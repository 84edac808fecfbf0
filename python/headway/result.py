"""What a run returns: the summary always, per-request records when asked for."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Tuple

if TYPE_CHECKING:  # numpy is imported on first use: a summary-only run never pays for it
    import numpy as np

__all__ = ["Result", "Summary", "RecordsNotCollected"]

# Column buffers as they come from the binding: name -> (numpy dtype, bytes).
RawColumns = Dict[str, Tuple[str, bytes]]


class RecordsNotCollected(ValueError):
    """Per-request records were asked for on a run that did not collect them."""


class Summary(Mapping[str, Any]):
    """The run's summary: a read-only mapping that also allows attribute access.

    Keys are the simulator's flat summary keys (``requests``, ``mean_response_ms``,
    ``p99_response_ms``, ``max_response_ms``, ``throughput_iops``, ``utilisation``, ...).

    >>> import headway
    >>> s = headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 100}}).summary
    >>> s.requests == s["requests"] == 100
    True
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_data", dict(data))

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __getattr__(self, key: str) -> Any:
        try:
            return self._data[key]
        except KeyError:
            raise AttributeError(f"summary has no `{key}`; keys: {', '.join(self._data)}") from None

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("a run's summary is read-only")

    def __repr__(self) -> str:
        return f"Summary({self._data!r})"

    def to_dict(self) -> Dict[str, Any]:
        """A plain, mutable copy.

        >>> import headway
        >>> type(headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 10}}).summary.to_dict())
        <class 'dict'>
        """
        return dict(self._data)


def _column(dtype: str, raw: bytes) -> np.ndarray:
    import numpy as np

    arr = np.frombuffer(raw, dtype=dtype)
    # Times, ids and sectors are unsigned in the core but far below 2**63: signed 64-bit
    # columns are what pandas, Arrow and arithmetic on differences expect.
    if arr.dtype == np.dtype("<u8"):
        arr = arr.view("<i8")
    elif arr.dtype.kind == "S":
        # Short names (a zone command, a refusal's error kind): "" where there is none.
        arr = arr.astype(str)
    return arr


class Result:
    """One run's outcome.

    - ``summary``: :class:`Summary` of the run.
    - ``meta``: drive, scheduler, seed, simulated end time, events, simulation wall time.
    - ``requests``: per-request records as a pandas DataFrame (``records=True`` only).

    >>> import headway
    >>> r = headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 200}}, records=True)
    >>> len(r.requests)
    200
    """

    def __init__(self, summary_json: str, columns: Optional[RawColumns], meta_json: str) -> None:
        self.summary = Summary(json.loads(summary_json))
        self.meta: Mapping[str, Any] = json.loads(meta_json)
        self._raw = columns
        self._frame = None

    @property
    def warnings(self) -> List[str]:
        """What the user should know about the run, one line each: bad trace records skipped
        (``skip_bad``), requests moved to fit the drive. Empty for a clean run.

        >>> import headway
        >>> headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 10}}).warnings
        []
        """
        return list(self.meta.get("warnings") or [])

    @property
    def arrays(self) -> List[Dict[str, Any]]:
        """Each ``[[arrays]]`` volume's summary (docs/arrays.md): logical ``requests`` and
        their ``mean_response_ms``, ``member_reads``, ``member_writes``, ``parity_ios``, ``degraded_reads``, the row
        updates by kind, ``rebuild`` and ``scrub`` progress, and ``members``, one dict per
        member and the spare; a ``cache-device`` volume also has ``cache`` (read hits and
        misses, population writes, destaging). Empty without arrays.

        >>> import headway
        >>> devices = [{"name": f"d{i}", "drive": "atlas10k"} for i in range(5)]
        >>> vol = {"name": "vol", "level": "raid5", "members": [d["name"] for d in devices]}
        >>> wl = {"requests": 20, "read_fraction": 0.0, "size_sectors": 8, "align_sectors": 8}
        >>> r = headway.run({"devices": devices, "arrays": [vol], "workload": wl})
        >>> a = r.arrays[0]
        >>> a["requests"], a["member_reads"], a["member_writes"], a["rmw_writes"]
        (20, 40, 40, 20)
        >>> a["mean_response_ms"] > 0
        True
        """
        return list(self.meta.get("arrays") or [])

    @property
    def smr(self) -> List[Dict[str, Any]]:
        """Each drive-managed SMR drive's report (docs/smr.md): what its media cache
        absorbed and what band cleaning cost, one dict per drive. Empty without
        ``[drive.smr]``.

        >>> import headway
        >>> headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 10}}).smr
        []
        """
        return list(self.meta.get("smr") or [])

    @property
    def zoned(self) -> List[Dict[str, Any]]:
        """Each zoned drive's report (docs/smr.md): its zones, the commands it refused by
        kind (``unaligned_writes``, ``reads_beyond_write_pointer``, ...), resets and
        appends, one dict per drive. Empty without ``[drive.zoned]``.

        >>> import headway
        >>> z = {"zone_size_sectors": 260400, "conventional_zones": 1}
        >>> wl = {"requests": 10, "read_fraction": 0.0, "size_sectors": 8}
        >>> r = headway.run({"drive": {"name": "ek1000", "zoned": z}, "workload": wl})
        >>> r.zoned[0]["zones"], r.zoned[0]["unaligned_writes"] + r.zoned[0]["appends"] <= 10
        (300, True)
        """
        return list(self.meta.get("zoned") or [])

    @property
    def trace_report(self) -> Optional[Dict[str, Any]]:
        """For a trace replay: records read, replayed, filtered, bad (with the first few
        line numbers), fitted and dropped; ``None`` for other workloads."""
        return self.meta.get("trace_report")

    @property
    def prediction_errors(self):  # -> pandas.DataFrame
        """The predictor's error (observed minus predicted service time) over the commands
        sent to an idle drive, in bins of an eighth of a rotation: columns ``from_ms``,
        ``to_ms``, ``count`` (empty bins left out; the end bins take everything beyond -2 and
        +3 rotations). Mass near +1 rotation is a seek the predictor underestimated. Tracked
        when the predictor is not the oracle, the drive has imperfections, or
        ``[output] predictions = true``.

        >>> import headway
        >>> exp = {"drive": {"name": "st41601n"}, "host": {"scheduler": "stf", "predictor": "lbn-curve"},
        ...        "workload": {"kind": "closed", "processes": 4, "requests": 200}}
        >>> int(headway.run(exp).prediction_errors["count"].sum())
        200
        """
        import pandas as pd

        return pd.DataFrame(self.meta.get("prediction_errors") or [], columns=["from_ms", "to_ms", "count"])

    def _section(self, key: str):  # -> pandas.DataFrame
        import pandas as pd

        rows = [dict(name=name, **fields) for name, fields in (self.summary.get(key) or {}).items()]
        return pd.DataFrame(rows).set_index("name") if rows else pd.DataFrame()

    @property
    def by_class(self):  # -> pandas.DataFrame
        """Workload requests by class: ``requests``, ``bytes``, ``mean_response_ms``,
        ``p99_response_ms``, ``max_response_ms``, ``busy_s``, ``deadline_misses``; one row per
        class name. Counts add up to ``summary.requests``.

        >>> import headway
        >>> exp = {"drive": {"name": "elite3"}, "workloads": [
        ...     {"class": "a", "requests": 30}, {"class": "b", "requests": 20}]}
        >>> headway.run(exp).by_class["requests"].to_dict()
        {'a': 30, 'b': 20}
        """
        return self._section("by_class")

    @property
    def by_process(self):  # -> pandas.DataFrame
        """Workload requests by process (one row ``all`` when the run has one process)."""
        return self._section("by_process")

    @property
    def by_device(self):  # -> pandas.DataFrame
        """Every request each device served (workload and host-made), with ``utilisation``."""
        return self._section("by_device")

    @property
    def by_origin(self):  # -> pandas.DataFrame
        """Every request by who made it: each workload by name, and each host component
        (``idle-scan``, ``freeblock``, ...). Counts add up to ``requests +
        background_requests``."""
        return self._section("by_origin")

    @property
    def class_series(self):  # -> pandas.DataFrame
        """Busy time and bytes per class per interval (``[output] series_ms``): columns
        ``interval``, ``class``, ``requests``, ``busy_ns``, ``bytes``; empty when not asked for.
        """
        import pandas as pd

        return pd.DataFrame(
            self.meta.get("class_series") or [],
            columns=["interval", "class", "requests", "busy_ns", "bytes"],
        )

    @property
    def has_records(self) -> bool:
        """Whether per-request records were collected."""
        return self._raw is not None

    def columns(self) -> Dict[str, np.ndarray]:
        """Per-request records as numpy arrays (read-only views of the simulator's buffers),
        plus ``response_ms``.

        >>> import headway
        >>> exp = {"drive": {"name": "elite3"}, "workload": {"requests": 50}}
        >>> cols = headway.run(exp, records=True).columns()
        >>> cols["done_ns"].dtype.name, len(cols["id"])
        ('int64', 50)
        """
        if self._raw is None:
            raise RecordsNotCollected(
                "this run did not collect per-request records: pass records=True to "
                "headway.run (or set `records = true` under [output])"
            )
        cols = {name: _column(dtype, raw) for name, (dtype, raw) in self._raw.items()}
        if "device" in cols:
            # A request the host served from memory has no device: -1.
            cols["device"] = cols["device"].astype("<i4")
            cols["device"][cols["device"] == 0xFFFF] = -1
        cols["response_ms"] = (cols["done_ns"] - cols["arrival_ns"]) / 1e6
        return cols

    @property
    def requests(self):  # -> pandas.DataFrame
        """Per-request records as a DataFrame: times in int64 nanoseconds, plus
        ``response_ms``. Built on first use.

        >>> import headway
        >>> exp = {"drive": {"name": "elite3"}, "workload": {"requests": 50}}
        >>> df = headway.run(exp, records=True).requests
        >>> bool((df.done_ns >= df.arrival_ns).all())
        True
        """
        if self._frame is None:
            import pandas as pd

            df = pd.DataFrame(self.columns())
            if "deadline_ns" in df:
                df["deadline_ns"] = df["deadline_ns"].astype("Int64").mask(df["deadline_ns"] < 0)
            if "origin" in df:
                df["origin_name"] = pd.Categorical(df["origin"].map(self._origin_name))
            if "class" in df and self.meta.get("classes"):
                names = self.meta["classes"]
                df["class_name"] = pd.Categorical(
                    df["class"].map(lambda c: names[c] if c < len(names) else str(c))
                )
            self._frame = df
        return self._frame

    def _origin_name(self, origin: int) -> str:
        workloads = self.meta.get("workloads") or ["workload"]
        host = self.meta.get("host_origins") or []
        if origin >= 0x8000:
            i = origin - 0x8000
            return host[i] if i < len(host) else f"host{i}"
        return workloads[origin] if origin < len(workloads) else f"workload{origin}"

    def to_arrow(self):  # -> pyarrow.Table
        """Per-request records as a pyarrow Table.

        >>> import headway
        >>> exp = {"drive": {"name": "elite3"}, "workload": {"requests": 20}}
        >>> headway.run(exp, records=True).to_arrow().num_rows
        20
        """
        import pyarrow as pa

        return pa.table(self.columns())

    def to_json(self, indent: Optional[int] = None) -> str:
        """The flat summary as a JSON object; a trace replay adds ``trace_report`` (records
        read, replayed, bad, ...), a run with warnings adds ``warnings``, so a saved
        summary says what was left out of it, and a run with zoned or drive-managed SMR
        drives adds their ``zoned`` and ``smr`` reports.

        >>> import headway, json
        >>> exp = {"drive": {"name": "elite3"}, "workload": {"requests": 20}}
        >>> json.loads(headway.run(exp).to_json())["requests"]
        20
        """
        out: Dict[str, Any] = dict(self.summary.to_dict())
        if self.trace_report is not None:
            out["trace_report"] = self.trace_report
        if self.warnings:
            out["warnings"] = self.warnings
        for key in ("smr", "zoned"):
            if self.meta.get(key):
                out[key] = self.meta[key]
        return json.dumps(out, indent=indent)

    def __repr__(self) -> str:
        s, m = self.summary, self.meta
        return (
            f"<headway.Result: {s['requests']:,} requests on {m.get('drive')} "
            f"with {m.get('scheduler')} (seed {m.get('seed')})\n"
            f"  response ms: mean {s['mean_response_ms']:.3f}  p50 {s['p50_response_ms']:.3f}  "
            f"p99 {s['p99_response_ms']:.3f}  max {s['max_response_ms']:.3f}\n"
            f"  throughput {s['throughput_iops']:.1f} IOPS, {s['throughput_mb_s']:.3f} MB/s; "
            f"utilisation {s['utilisation']:.3f}>"
        )
