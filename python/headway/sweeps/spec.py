"""A sweep file: a base experiment, the axes to vary and the seeds; expanded into runs.

```toml
base = "experiment.toml"        # a path (relative to this file), or an inline [base] table
seeds = 2                       # 1..2; a list: seeds = [3, 7]; default: the base's seed
confidence = 0.95               # of the intervals over seeds

[grid]                          # every combination of these
"host.scheduler" = ["fcfs", "sptf"]
"drive.queue_depth" = [1, 8]

[[zip]]                         # these vary together (same length)
"workload.interarrival_ms" = [5.0, 10.0]
"workload.requests" = [2000, 1000]

[[points]]                      # an explicit list of settings (crossed with the rest)
"drive.name" = "atlas10k"
```

Every key is a dotted key of the experiment, applied to the parsed base; the simulator
validates each resulting experiment, so a misspelt key is reported before anything runs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

try:  # Python 3.11+
    import tomllib
except ImportError:  # pragma: no cover - older Pythons
    import tomli as tomllib  # type: ignore[no-redef]

from headway._overrides import load, set_dotted
from headway.errors import ConfigError

__all__ = ["Sweep", "Run", "load_sweep", "parse_sweep"]

TOP_KEYS = ("name", "base", "seeds", "confidence", "grid", "zip", "points")

# Columns every run's row has besides the settings and the summary keys.
FIXED_COLUMNS = ["run", "point", "seed", "run_id", "status", "error"]


@dataclass(frozen=True)
class Run:
    """One simulation of a sweep: a grid point's settings and a seed."""

    index: int
    point: int
    params: Tuple[Tuple[str, Any], ...]
    seed: int
    run_id: str

    def params_dict(self) -> Dict[str, Any]:
        return dict(self.params)


@dataclass
class Sweep:
    base: Dict[str, Any]
    origin: Optional[str]
    axes: List[str]
    points: List[Dict[str, Any]]
    seeds: List[int]
    confidence: float = 0.95
    name: str = "sweep"
    source: str = "sweep"
    _runs: List[Run] = field(default_factory=list)

    def runs(self) -> List[Run]:
        if not self._runs:
            base_digest = _digest(self.base)
            index = 0
            for p, point in enumerate(self.points):
                params = tuple((k, point[k]) for k in self.axes)
                for seed in self.seeds:
                    run_id = _digest([base_digest, [list(kv) for kv in params], seed])[:16]
                    self._runs.append(Run(index, p, params, seed, run_id))
                    index += 1
        return self._runs

    def experiment(self, run: Run) -> Dict[str, Any]:
        """The run's experiment as a dict (the base with the run's settings)."""
        data = json.loads(json.dumps(self.base))
        for key, value in run.params:
            set_dotted(data, key, value)
        return data


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


class _Where:
    """Names the sweep file and, best effort, the line of a key in errors."""

    def __init__(self, text: str, source: str) -> None:
        self.lines = text.splitlines()
        self.source = source

    def line_of(self, key: str) -> Optional[int]:
        last = key.split(".")[-1] if key.count(".") == 0 else key
        patterns = [
            rf'^\s*"{re.escape(key)}"\s*=',
            rf"^\s*'{re.escape(key)}'\s*=",
            rf"^\s*{re.escape(last)}\s*=",
            rf"^\s*\[+\s*{re.escape(key)}\s*\]+",
        ]
        for pat in patterns:
            for i, line in enumerate(self.lines, 1):
                if re.match(pat, line):
                    return i
        return None

    def error(self, key: str, message: str, line_key: Optional[str] = None) -> ConfigError:
        line = self.line_of(line_key or key)
        at = f"{self.source}:{line}" if line else self.source
        return ConfigError(f"{at}: key `{key}`: {message}")


def load_sweep(path: "str | Path") -> Sweep:
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    return parse_sweep(text, source=str(path), folder=path.parent)


def parse_sweep(
    text_or_data: "str | Mapping[str, Any]", source: str = "sweep", folder: Optional[Path] = None
) -> Sweep:
    """Read and check a sweep; raises :class:`headway.ConfigError` naming file, line and key."""
    if isinstance(text_or_data, str):
        try:
            data = tomllib.loads(text_or_data)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{source}: {e}") from None
        where = _Where(text_or_data, source)
    else:
        data = dict(text_or_data)
        where = _Where("", source)

    for key in data:
        if key not in TOP_KEYS:
            raise where.error(key, f"unknown; a sweep has {', '.join(TOP_KEYS)}")

    base_value = data.get("base", {})
    if isinstance(base_value, str):
        base_path = Path(base_value)
        if not base_path.is_absolute() and folder is not None:
            base_path = folder / base_path
        if not base_path.exists():
            raise where.error("base", f"no such file: {base_path}")
        base, origin = load(str(base_path))
        origin = str(Path(origin).resolve()) if origin else None
    elif isinstance(base_value, Mapping):
        base, origin = load(dict(base_value))
        # Relative paths inside an inline base resolve against the sweep file's folder.
        origin = str((folder / Path(source).name).resolve()) if folder is not None else None
    else:
        raise where.error("base", "give a path to an experiment file or an inline [base] table")

    axes: List[str] = []
    factors: List[List[Dict[str, Any]]] = []

    grid = data.get("grid", {})
    if not isinstance(grid, Mapping):
        raise where.error("grid", "must be a table of dotted keys to lists of values")
    for key, values in grid.items():
        _check_axis(where, f"grid.{key}", key, values)
        axes.append(key)
        factors.append([{key: v} for v in values])

    zips = data.get("zip", [])
    if isinstance(zips, Mapping):
        zips = [zips]
    if not isinstance(zips, list):
        raise where.error("zip", "must be [[zip]] tables of dotted keys to lists of equal length")
    for group in zips:
        if not isinstance(group, Mapping):
            raise where.error("zip", "each [[zip]] entry must be a table of dotted keys to lists")
        if not group:
            raise where.error("zip", "an empty [[zip]] table")
        lengths = {}
        for key, values in group.items():
            _check_axis(where, f"zip.{key}", key, values)
            lengths[key] = len(values)
        if len(set(lengths.values())) > 1:
            detail = ", ".join(f"`{k}` has {n}" for k, n in lengths.items())
            first = next(iter(lengths))
            raise where.error(f"zip.{first}", f"zipped axes must have the same length: {detail}", first)
        axes.extend(group)
        n = next(iter(lengths.values()))
        factors.append([{k: group[k][i] for k in group} for i in range(n)])

    points = data.get("points")
    if points is not None:
        if not isinstance(points, list) or not points:
            raise where.error("points", "must be a non-empty list of [[points]] tables")
        point_keys: List[str] = []
        for p in points:
            if not isinstance(p, Mapping):
                raise where.error("points", "each entry must be a table of dotted keys to values")
            for k in p:
                if k not in point_keys:
                    point_keys.append(k)
        axes.extend(point_keys)
        factors.append([{k: p.get(k) for k in point_keys} for p in points])

    for key in axes:
        if axes.count(key) > 1:
            raise where.error(key, "varied twice (in more than one of grid, zip and points)")

    # No `seeds`: the base experiment's own seed (the simulator's default is 1), one run per point.
    base_seed = base.get("seed", 1)
    seeds = data.get("seeds", [base_seed] if isinstance(base_seed, int) else 1)
    if isinstance(seeds, bool) or not isinstance(seeds, (int, list)):
        raise where.error("seeds", "a count (seeds = 3 runs seeds 1..3) or a list of seeds")
    if isinstance(seeds, int):
        if seeds < 1:
            raise where.error("seeds", "must be at least 1")
        seeds = list(range(1, seeds + 1))
    if not seeds:
        raise where.error("seeds", "empty list of seeds")
    if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds):
        raise where.error("seeds", "seeds must be non-negative integers")
    if len(set(seeds)) != len(seeds):
        raise where.error("seeds", "a seed is listed twice")

    confidence = data.get("confidence", 0.95)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise where.error("confidence", "must be a number between 0 and 1, e.g. 0.95")

    grid_points: List[Dict[str, Any]] = []
    for combo in itertools.product(*factors):
        point: Dict[str, Any] = {}
        for part in combo:
            point.update(part)
        grid_points.append(point)

    sweep = Sweep(
        base=base,
        origin=origin,
        axes=axes,
        points=grid_points,
        seeds=seeds,
        confidence=float(confidence),
        name=str(data.get("name", Path(source).stem)),
        source=source,
    )
    _check_experiments(sweep, where)
    return sweep


def _check_axis(where: _Where, name: str, key: str, values: Any) -> None:
    if not isinstance(values, list):
        raise where.error(name, "must be a list of values", key)
    if not values:
        raise where.error(name, "empty axis: give at least one value", key)


def _check_experiments(sweep: Sweep, where: _Where) -> None:
    """Let the simulator check every grid point before any run starts. A failing point is
    blamed on the one setting that breaks a point that works, so the error names its key."""
    from headway import _headway
    from headway.config import to_toml
    from headway.errors import HeadwayError

    # The checked text is the base re-written with the settings: its line numbers mean
    # nothing to the user, who is told the sweep file's line instead.
    prefix = re.compile(rf"^{re.escape(sweep.origin)}(:\d+)?: ") if sweep.origin else None

    def check(point: Mapping[str, Any]) -> Optional[str]:
        data = json.loads(json.dumps(sweep.base))
        try:
            for key, value in point.items():
                set_dotted(data, key, value)
            _headway.check_config(to_toml(data), sweep.origin)
        except HeadwayError as e:
            return prefix.sub("", str(e)) if prefix else str(e)
        return None

    checked: Dict[str, Optional[str]] = {}
    failing = None
    working = None
    for point in sweep.points:
        digest = _digest(point)
        if digest not in checked:
            checked[digest] = check(point)
        if checked[digest] is None:
            working = working or point
        elif failing is None:
            failing = (point, checked[digest])
    if failing is None:
        return
    point, message = failing
    if working is None and check({}) is None:
        working = {}
    if working is not None:
        for key, value in point.items():
            if working.get(key) == value:
                continue
            blame = check({**working, key: value})
            if blame is not None:
                raise where.error(key, f"value {value!r}: {blame}")
    if not point:
        raise where.error("base", message)
    settings = ", ".join(f"{k} = {v!r}" for k, v in point.items())
    raise ConfigError(f"{sweep.source}: grid point {settings}: {message}")
