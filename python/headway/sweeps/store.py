"""A sweep's output folder: one small JSON file per finished run (written atomically, so a
killed sweep never leaves a half result that would be read back), and the Parquet tables
rebuilt from them.

    DIR/runs/<run_id>.json   one per finished run (ok or failed)
    DIR/runs.parquet         one row per run: settings, seed, summary keys, status, error
    DIR/summary.parquet      per grid point: runs, failures, mean and interval per metric
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional

from headway.sweeps.spec import FIXED_COLUMNS, Run, Sweep


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class Store:
    def __init__(self, out_dir: "str | os.PathLike[str]") -> None:
        self.dir = Path(out_dir)
        self.runs_dir = self.dir / "runs"
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        # Leftovers of a write cut short: never read, removed.
        for tmp in self.runs_dir.glob(".*.tmp"):
            with contextlib.suppress(OSError):
                tmp.unlink()

    def finished(self) -> Dict[str, Dict[str, Any]]:
        """run_id -> row of every run already done successfully (failed runs are retried)."""
        done: Dict[str, Dict[str, Any]] = {}
        for path in self.runs_dir.glob("*.json"):
            try:
                row = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if row.get("status") == "ok":
                done[row["run_id"]] = row
        return done

    def save(self, row: Dict[str, Any]) -> None:
        data = json.dumps({k: _json_safe(v) for k, v in row.items()}, sort_keys=True).encode()
        _atomic_write(self.runs_dir / f"{row['run_id']}.json", data)

    def write_tables(self, sweep: Sweep, rows: Iterable[Dict[str, Any]]):
        """Rewrite runs.parquet and summary.parquet (atomically) from ``rows``; returns the
        runs table as a DataFrame."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        from headway.sweeps.stats import summarise

        frame = runs_frame(sweep, rows)
        for name, table in (("runs.parquet", frame), ("summary.parquet", summarise(frame, sweep))):
            sink = pa.BufferOutputStream()
            pq.write_table(pa.Table.from_pandas(table, preserve_index=False), sink)
            _atomic_write(self.dir / name, sink.getvalue().to_pybytes())
        return frame


def _cell(value: Any) -> Any:
    """Settings that are tables or arrays become JSON text, so every column has one type."""
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return value


def runs_frame(sweep: Sweep, rows: Iterable[Dict[str, Any]]):
    """One row per run in the sweep's own order: settings (as their dotted keys), seed,
    summary keys, status and error."""
    import pandas as pd

    by_index = sorted(rows, key=lambda r: r["run"])
    summary_keys: List[str] = []
    for r in by_index:
        for k in r.get("summary") or {}:
            if k not in summary_keys:
                summary_keys.append(k)
    records = []
    for r in by_index:
        rec: Dict[str, Any] = {k: _cell(v) for k, v in r["params"].items()}
        for k in FIXED_COLUMNS:
            rec[k] = r.get(k)
        summary = r.get("summary") or {}
        for k in summary_keys:
            rec[k] = summary.get(k)
        records.append(rec)
    columns = list(sweep.axes) + FIXED_COLUMNS + summary_keys
    return pd.DataFrame.from_records(records, columns=columns)


def make_row(run: Run, summary: Optional[Dict[str, Any]], error: Optional[str]) -> Dict[str, Any]:
    return {
        "run": run.index,
        "point": run.point,
        "seed": run.seed,
        "run_id": run.run_id,
        "params": run.params_dict(),
        "status": "ok" if error is None else "failed",
        "error": error,
        "summary": summary,
    }
