"""Experiment configuration from Python.

An experiment reaches the simulator as TOML text. It can be given as a path to a TOML
file, a TOML string, a plain dict, or the typed objects below, which mirror the sections
of an experiment file (``[drive]``, ``[host]``, ``[link]``, ``[workload]``, ``[output]``).
Fields left as ``None`` take the simulator's defaults. The workload section is passed
through untouched, so every workload kind the simulator knows works here.

>>> import headway
>>> cfg = headway.Config(
...     drive=headway.Drive(name="elite3"),
...     host=headway.Host(scheduler="sstf"),
...     workload={"requests": 500},
...     seed=3,
... )
>>> cfg.to_dict()["host"]
{'scheduler': 'sstf'}
>>> headway.run(cfg).summary.requests
500
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union


from headway.errors import ConfigError

__all__ = [
    "Config",
    "Device",
    "Drive",
    "Host",
    "Link",
    "Output",
    "Workload",
    "ConfigLike",
    "default_config_text",
    "to_toml",
]


def _drop_none(value: Any) -> Any:
    """TOML has no null: a ``None`` means "use the default", so the key is left out."""
    if isinstance(value, Mapping):
        return {str(k): _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_drop_none(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "to_dict"):
        return _drop_none(value.to_dict())
    return value


class _Section:
    """Shared by the typed sections: ``to_dict()`` keeps set fields, then ``extra``."""

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            if f.name == "extra":
                out.update(v)
            elif v is not None:
                out[f.name] = v
        return _drop_none(out)


@dataclass
class Drive(_Section):
    """``[drive]``: a catalog name (see :func:`headway.disks`) or a drive file path.

    >>> Drive(name="elite3", queue_depth=4).to_dict()
    {'name': 'elite3', 'queue_depth': 4}
    """

    name: Optional[str] = None
    queue_depth: Optional[int] = None
    #: How the drive orders its own queue (``fcfs``, ``sstf``, ``look``, ``clook``, ``sptf``).
    firmware_scheduler: Optional[str] = None
    #: ``[drive.imperfections]``: ``seek_jitter_ms``, ``rotation_drift_ppm``,
    #: ``drift_period_s``, ``recal_interval_s``, ``recal_cylinders``, ``recal_busy_ms``.
    imperfections: Optional[Dict[str, Any]] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Device(_Section):
    """One ``[[devices]]`` entry: a named device with its drive, queue and predictor.

    >>> Device(name="fast", drive="cheetah9lp", queue_depth=4).to_dict()
    {'name': 'fast', 'drive': 'cheetah9lp', 'queue_depth': 4}

    A laptop drive that spins down, and a hybrid drive (platter and NVCache in one
    enclosure) with its first 128 MiB pinned and populated:

    >>> Device(name="laptop", drive="ek1000", power={"spindown_timeout_ms": 5000.0}).to_dict()
    {'name': 'laptop', 'drive': 'ek1000', 'power': {'spindown_timeout_ms': 5000.0}}
    >>> hybrid = Device(name="h", drive="hybrid", platter="ek1000",
    ...                 flash={"logical_bytes": 134217728},
    ...                 pins=[{"lbn": 0, "sectors": 262144, "populate": True}])
    >>> hybrid.to_dict()["pins"]
    [{'lbn': 0, 'sectors': 262144, 'populate': True}]
    """

    name: Optional[str] = None
    drive: Optional[str] = None
    queue_depth: Optional[int] = None
    firmware_scheduler: Optional[str] = None
    imperfections: Optional[Dict[str, Any]] = None
    predictor: Optional[str] = None
    predictor_options: Optional[Dict[str, Any]] = None
    max_outstanding: Optional[int] = None
    #: ``drive = "flash"``: the flash device's geometry and timing; ``drive = "hybrid"``: its
    #: NVCache (``logical_bytes``, ``page_bytes``, ...; docs/flash_backed.md).
    flash: Optional[Dict[str, Any]] = None
    #: Power states of a rotating drive (``active_w``, ``idle_w``, ``standby_w``, ``spinup_ms``,
    #: ``spinup_j``, ``spindown_timeout_ms``); absent: no power model.
    power: Optional[Dict[str, Any]] = None
    #: ``drive = "hybrid"``: the platter drive in the enclosure (a catalog name or drive file).
    platter: Optional[str] = None
    #: ``drive = "hybrid"``: platter and flash serve at once (default: one channel, serialised).
    concurrent: Optional[bool] = None
    #: ``drive = "hybrid"``: ATA-8 NVCache pins made before the run, each
    #: ``{"lbn": ..., "sectors": ..., "populate": bool}`` (populate: Populate Immediate).
    pins: Optional[Sequence[Dict[str, Any]]] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Host(_Section):
    """``[host]``: the scheduler (see :data:`headway.schedulers`) and predictor
    (``oracle``, ``calibrated``, ``lbn-curve``).

    >>> Host(scheduler="sptf").to_dict()
    {'scheduler': 'sptf'}
    >>> Host(scheduler="gstf", predictor="calibrated", options={"group_cylinders": 700}).to_dict()
    {'scheduler': 'gstf', 'predictor': 'calibrated', 'options': {'group_cylinders': 700}}
    """

    scheduler: Optional[str] = None
    predictor: Optional[str] = None
    max_outstanding: Optional[int] = None
    #: ``[host.options]``: the scheduler's own keys (e.g. ``group_cylinders`` for ``gstf``).
    options: Optional[Dict[str, Any]] = None
    #: ``[host.predictor_options]`` (e.g. ``cmps_sectors``, ``lag_error_ms``).
    predictor_options: Optional[Dict[str, Any]] = None
    #: Host CPU per estimate a scheduler makes while deciding (ns); default 0.
    decision_ns_per_estimate: Optional[int] = None
    #: ``[host.inner]``: the scheduler a wrapper wraps, e.g. ``{"scheduler": "sptf"}``.
    inner: Optional[Dict[str, Any]] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Link(_Section):
    """``[link]``: host adapter latencies.

    >>> Link(command_latency_ms=0.1).to_dict()
    {'command_latency_ms': 0.1}
    """

    command_latency_ms: Optional[float] = None
    completion_latency_ms: Optional[float] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Output(_Section):
    """``[output]``: what to collect besides the summary.

    >>> Output(records=True).to_dict()
    {'records': True}
    """

    records: Optional[bool] = None
    max_time_s: Optional[float] = None
    #: Per-class busy time and bytes per interval of this many ms (``Result.class_series``).
    series_ms: Optional[float] = None
    extra: Dict[str, Any] = field(default_factory=dict)


class Workload:
    """``[workload]``: any workload the simulator knows; fields pass through as given.

    >>> Workload(kind="trace", path="x.trace", format="disksim-ascii").to_dict()
    {'kind': 'trace', 'path': 'x.trace', 'format': 'disksim-ascii'}
    >>> Workload(requests=100).to_dict()
    {'requests': 100}
    """

    def __init__(self, kind: Optional[str] = None, **fields: Any) -> None:
        self.kind = kind
        self.fields = fields

    def to_dict(self) -> Dict[str, Any]:
        head = {} if self.kind is None else {"kind": self.kind}
        return _drop_none({**head, **self.fields})

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items())
        return f"Workload({args})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Workload) and other.to_dict() == self.to_dict()


SectionLike = Union[Mapping[str, Any], _Section, Workload, None]


@dataclass
class Config:
    """A whole experiment. Sections may be typed objects or plain dicts. Several devices and
    workloads go in ``devices`` and ``workloads`` (lists), instead of ``drive`` and
    ``workload``.

    >>> Config(seed=2, workload=Workload(requests=10)).to_dict()
    {'seed': 2, 'workload': {'requests': 10}}
    >>> Config(devices=[Device(name="a"), Device(name="b")],
    ...        workloads=[Workload(requests=5, device="b", **{"class": "x"})]).to_dict()["workloads"]
    [{'requests': 5, 'device': 'b', 'class': 'x'}]
    """

    drive: SectionLike = None
    host: SectionLike = None
    link: SectionLike = None
    workload: SectionLike = None
    output: SectionLike = None
    seed: Optional[int] = None
    name: Optional[str] = None
    devices: Optional[Sequence[SectionLike]] = None
    workloads: Optional[Sequence[SectionLike]] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for key in ("seed", "name"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        for key in ("drive", "host", "link", "workload", "output"):
            section = getattr(self, key)
            if section is not None:
                out[key] = _drop_none(section)
        for key in ("devices", "workloads"):
            entries = getattr(self, key)
            if entries is not None:
                out[key] = [_drop_none(e) for e in entries]
        out.update(_drop_none(self.extra))
        return out

    def to_toml(self) -> str:
        """The experiment as TOML text.

        >>> print(Config(host=Host(scheduler="look")).to_toml().strip())
        [host]
        scheduler = "look"
        """
        return to_toml(self.to_dict())


ConfigLike = Union[str, "os.PathLike[str]", Mapping[str, Any], Config, None]


def to_toml(data: Mapping[str, Any]) -> str:
    """A dict as experiment TOML (``None`` values dropped).

    >>> to_toml({"seed": 4, "drive": {"name": "elite3", "queue_depth": None}})
    'seed = 4\\n\\n[drive]\\nname = "elite3"\\n'
    """
    try:
        import tomli_w  # only when a configuration is written out

        return tomli_w.dumps(_drop_none(data))
    except (TypeError, ValueError) as e:
        raise ConfigError(f"config: cannot be written as TOML: {e}") from e


def default_config_text() -> str:
    """The built-in default experiment (also ``examples/default.toml`` in the repository).

    >>> "[workload]" in default_config_text()
    True
    """
    return _default_path().read_text(encoding="utf-8")


def _default_path() -> Path:
    # The package's own folder, not importlib.resources (slow to import): headway is
    # installed as files (a wheel or an editable install), never run from a zip.
    return Path(__file__).with_name("default.toml")


def _looks_like_toml(text: str) -> bool:
    return "\n" in text or "=" in text or text.lstrip().startswith("[")


def _is_existing_file(text: str) -> bool:
    """Whether ``text`` names an existing file; TOML text longer than a file name can be is
    not one (the system refuses to look it up and says so with an OSError)."""
    try:
        return Path(text).exists()
    except (OSError, ValueError):
        return False


def source(config: ConfigLike) -> Tuple[Optional[str], Optional[str]]:
    """``(toml_text, origin)`` for the simulator. ``origin`` is the file the text came from:
    errors name it and relative paths inside resolve against its folder. A file path is
    passed on unread, so the simulator reports a missing file in its own words."""
    if config is None:
        return default_config_text(), str(_default_path())
    if isinstance(config, Config):
        return config.to_toml(), None
    if isinstance(config, Mapping):
        return to_toml(config), None
    if isinstance(config, os.PathLike):
        return None, os.fspath(config)
    if isinstance(config, str):
        if _looks_like_toml(config) and not _is_existing_file(config):
            return config, None
        return None, config
    raise TypeError(
        "config must be a TOML file path, a TOML string, a dict or headway.Config, "
        f"not {type(config).__name__}"
    )
