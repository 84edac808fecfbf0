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
from typing import Any, Dict, Mapping, Optional, Sequence, Union

from headway._toml_text import _drop_none, default_config_text, to_toml

__all__ = [
    "Array",
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

    A host-managed zoned drive, and a drive-managed SMR layer over a conventional drive's
    mechanics (docs/smr.md):

    >>> Drive(name="ek1000", zoned={"zone_size_sectors": 260400}).to_dict()
    {'name': 'ek1000', 'zoned': {'zone_size_sectors': 260400}}
    >>> smr = Drive(name="ek1000", smr={"media_cache_sectors": 65536, "band_sectors": 5208})
    >>> smr.to_dict()["smr"]["band_sectors"]
    5208
    """

    name: Optional[str] = None
    queue_depth: Optional[int] = None
    #: How the drive orders its own queue (``fcfs``, ``sstf``, ``look``, ``clook``, ``sptf``).
    firmware_scheduler: Optional[str] = None
    #: Where the firmware's SPTF ranks from: ``decision`` (default, the head at the decision)
    #: or ``last-media-event`` (DiskSim 4.0's ranking; docs/fidelity.md).
    firmware_sptf_angle: Optional[str] = None
    #: A named host interface setting the bus time per sector (``fast_scsi2``, ``ultra2``, ``ultra160``,
    #: ``ultra320``, ``ata66``, ``ata100``, ``sata6g``; default ``validated``, the drive file's
    #: own bus): see :func:`headway.interfaces`. Not with ``bus_sector_transfer_ms``.
    interface: Optional[str] = None
    #: The drive's bus time per sector (ms), in place of its parameters'.
    bus_sector_transfer_ms: Optional[float] = None
    #: Bus overlap: the drive positions for its next queued command while it still sends the
    #: previous one's data (default off, as DiskSim; docs/interfaces.md).
    bus_overlap: Optional[bool] = None
    #: ``[drive.imperfections]``: ``seek_jitter_ms``, ``rotation_drift_ppm``,
    #: ``drift_period_s``, ``recal_interval_s``, ``recal_cylinders``, ``recal_busy_ms``.
    imperfections: Optional[Dict[str, Any]] = None
    #: ``[drive.smr]``: drive-managed SMR over this drive's mechanics
    #: (``media_cache_sectors``, ``media_cache_start_lbn``, ``band_sectors``,
    #: ``idle_clean_delay_ms``, ``max_cache_extents``); default: the drive file's, if any.
    smr: Optional[Dict[str, Any]] = None
    #: ``[drive.zoned]``: host-managed or host-aware zones (``zone_size_sectors``,
    #: ``conventional_zones``, ``kind``, ``max_open_zones``, ``zone_reset_ms``).
    zoned: Optional[Dict[str, Any]] = None
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

    A drive behind a controller with a 4 MiB write-back memory cache:

    >>> Device(name="d", drive="atlas10k", cache={"size_sectors": 8192}).to_dict()
    {'name': 'd', 'drive': 'atlas10k', 'cache': {'size_sectors': 8192}}

    Two disks on one SCSI bus, one command phase at a time (docs/interfaces.md):

    >>> [Device(name=f"d{i}", drive="hp_c3323a", shared_bus="scsi0").to_dict() for i in (0, 1)][1]
    {'name': 'd1', 'drive': 'hp_c3323a', 'shared_bus': 'scsi0'}
    """

    name: Optional[str] = None
    drive: Optional[str] = None
    queue_depth: Optional[int] = None
    firmware_scheduler: Optional[str] = None
    #: As :attr:`Drive.firmware_sptf_angle`.
    firmware_sptf_angle: Optional[str] = None
    #: As :attr:`Drive.interface`, :attr:`Drive.bus_sector_transfer_ms`, :attr:`Drive.bus_overlap`.
    interface: Optional[str] = None
    bus_sector_transfer_ms: Optional[float] = None
    bus_overlap: Optional[bool] = None
    imperfections: Optional[Dict[str, Any]] = None
    #: As :attr:`Drive.smr` and :attr:`Drive.zoned`.
    smr: Optional[Dict[str, Any]] = None
    zoned: Optional[Dict[str, Any]] = None
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
    #: A memory cache in the device's controller, between the host's scheduler and the
    #: device: ``size_sectors``, ``line_sectors``, ``write_policy`` (``"write-through"``,
    #: ``"write-behind"``, ``"write-back"``), ``flush_cluster_lines``, ``max_requests``
    #: (docs/disksim-params.md); absent: requests go to the device.
    cache: Optional[Dict[str, Any]] = None
    #: The bus this device shares with every device naming the same one: one owner at a
    #: time, each command phase and each read's data (docs/interfaces.md); its settings go
    #: in :attr:`Config.buses`; default a bus of its own.
    shared_bus: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Host(_Section):
    """``[host]``: the scheduler (see :data:`headway.schedulers`) and predictor
    (``oracle``, ``calibrated``, ``lbn-curve``).

    >>> Host(scheduler="sptf").to_dict()
    {'scheduler': 'sptf'}
    >>> Host(scheduler="gstf", predictor="calibrated", options={"group_cylinders": 700}).to_dict()
    {'scheduler': 'gstf', 'predictor': 'calibrated', 'options': {'group_cylinders': 700}}
    >>> Host(scheduler="sptf", zone_write_plugging=True, zone_append="emulated").to_dict()
    {'scheduler': 'sptf', 'zone_write_plugging': True, 'zone_append': 'emulated'}
    >>> Host(zone_write_plugging=True, zone_plug_max_merge_sectors=1024).to_dict()
    {'zone_write_plugging': True, 'zone_plug_max_merge_sectors': 1024}
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
    #: Zone write plugging for zoned drives: one write per sequential zone past the
    #: scheduler at a time (docs/smr.md); default off.
    zone_write_plugging: Optional[bool] = None
    #: ``"native"`` (the drive places a zone append; default) or ``"emulated"`` (the host
    #: writes it at the write pointer it tracks; turns plugging on).
    zone_append: Optional[str] = None
    #: Whether a zone's plug sends the waiting writes that continue the one it lets go
    #: with it as one command; default on with plugging.
    zone_plug_merge: Optional[bool] = None
    #: The largest such merged command in sectors; default 2560 (1,280 KiB).
    zone_plug_max_merge_sectors: Optional[int] = None
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


@dataclass
class Array(_Section):
    """One ``[[arrays]]`` entry: a volume over some of the ``devices`` (docs/arrays.md).
    Workloads address it by name (``device="vol"``).

    >>> Array(name="vol", level="raid5", members=["d0", "d1", "d2", "d3", "d4"],
    ...       stripe_unit_sectors=128).to_dict()["level"]
    'raid5'
    >>> Array(name="m", level="raid1", members=["a", "b"], spare="c",
    ...       failure={"member": "a", "at_ms": 100.0},
    ...       rebuild={"policy": "idle", "idle_ms": 20.0}).to_dict()["rebuild"]
    {'policy': 'idle', 'idle_ms': 20.0}
    """

    name: Optional[str] = None
    #: ``raid0``, ``raid1``, ``raid10``, ``raid4``, ``raid5``, ``raid6``.
    level: Optional[str] = None
    members: Optional[Sequence[str]] = None
    stripe_unit_sectors: Optional[int] = None
    member_sectors: Optional[int] = None
    parity_stripe_unit_sectors: Optional[int] = None
    #: ``left-symmetric`` (default), ``left-asymmetric``, ``right-asymmetric``, ``right-symmetric``.
    parity_rotation: Optional[str] = None
    #: ``fewest-ios`` (default), ``rmw``, ``reconstruct``.
    small_write: Optional[str] = None
    rmw_fraction: Optional[float] = None
    #: With ``rmw_fraction``: partial-row writes planned as DiskSim 4.0 plans them.
    disksim_small_writes: Optional[bool] = None
    sync_writes: Optional[bool] = None
    copies: Optional[int] = None
    #: ``fastest`` (default), ``primary``, ``round-robin``, ``shortest-queue``.
    mirror_read: Optional[str] = None
    spare: Optional[str] = None
    #: ``{"member": "d2", "at_ms": 2000.0}``.
    failure: Optional[Dict[str, Any]] = None
    #: ``{"policy": "rate" | "idle" | "freeblock", "rate_mb_s", "idle_ms", "unit_sectors",
    #: "start_ms", "rate_window_steps", "spare_writes": "immediate" | "idle"}``
    #: (``freeblock`` needs ``[host] scheduler = "freeblock"``; ``spare_writes`` is a
    #: rebuild's alone).
    rebuild: Optional[Dict[str, Any]] = None
    scrub: Optional[Dict[str, Any]] = None
    extra: Dict[str, Any] = field(default_factory=dict)


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

    Two disks on one bus whose grants cost 0.05 ms each:

    >>> Config(devices=[Device(name=f"d{i}", shared_bus="scsi0") for i in (0, 1)],
    ...        buses=[{"name": "scsi0", "arbitration_ms": 0.05}]).to_dict()["buses"]
    [{'name': 'scsi0', 'arbitration_ms': 0.05}]
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
    #: ``[[arrays]]``: volumes over the devices (:class:`Array`).
    arrays: Optional[Sequence[SectionLike]] = None
    #: ``[[buses]]``: settings of the shared buses the devices name (``name``,
    #: ``arbitration_ms``, ``hold_read_data``; docs/interfaces.md).
    buses: Optional[Sequence[SectionLike]] = None
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
        for key in ("devices", "workloads", "arrays", "buses"):
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
