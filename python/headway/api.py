"""The Python API: run an experiment, list drives and schedulers."""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Union

from headway import _headway
from headway._source import source
from headway.result import Result

if TYPE_CHECKING:  # the typed configuration loads only when used
    from headway.config import ConfigLike

__all__ = ["run", "disks", "schedulers", "version"]

ProgressArg = Union[bool, Callable[[int, int], Any]]


def run(
    config: ConfigLike = None,
    *,
    seed: Optional[int] = None,
    records: bool = False,
    scheduler: Any = None,
    progress: ProgressArg = False,
    overrides: Optional[Mapping[str, Any]] = None,
    class_schedulers: Optional[Mapping[str, Any]] = None,
    background_task: Any = None,
    trace: Optional[Mapping[str, Any]] = None,
) -> Result:
    """Run one experiment and return its :class:`~headway.Result`.

    ``config`` is a TOML file path (relative paths inside it resolve against its folder), a
    DiskSim 4.0 experiment file (``.parv``: its driver, disks, logical organisations and
    synthetic generator; ``result.warnings`` names each parameter headway does not model),
    a TOML string, a dict, a :class:`headway.Config`, or ``None`` for the built-in default
    experiment. ``seed`` overrides the config's seed. ``records=True`` keeps one record per
    request (``result.requests``). ``scheduler`` overrides the configured one: a built-in
    name, or a Python object with ``on_arrival(req, ctx)`` and ``decide(ctx)`` (optionally
    ``on_completion(done, ctx)``, ``on_timer(ctx)``, ``name``). ``progress=True`` shows a
    progress bar on stderr (from the first report on, once rich is loaded: a run over in a
    few milliseconds shows none); a callable is called with ``(completed, now_ns)`` every ~32k
    completions. Ctrl-C stops a run with ``KeyboardInterrupt``. ``overrides`` sets settings by
    dotted key on top of ``config`` (``{"drive.firmware_scheduler": "sptf"}``).
    ``class_schedulers`` (with ``[host] scheduler = "cello"``) maps class names to Cello
    class schedulers written in Python, objects with ``place(request, queue, positions)``
    returning where the request goes (see ``docs/cello.md``). ``background_task`` (with
    ``[host] scheduler = "freeblock"``) is an object whose ``delivered(lbn, sectors, now_ms)``
    receives the task's blocks as their free reads complete and may return a list of
    ``("want" | "drop", lbn, sectors)`` changes to the wanted blocks (see
    ``docs/freeblock.md``). ``trace`` (with a DiskSim experiment file as ``config``) replays
    a trace on the experiment's whole system, as DiskSim's ``disksim F.parv F.outv ascii
    TRACE 0`` does: a trace ``[workload]`` table as a dict (``{"path": "ascii.trace"}`` and
    any other trace key; a relative path resolves against the ``.parv`` file's folder). The
    experiment's ``disksim_iosim`` I/O mappings send each trace device to its disk.

    >>> import headway
    >>> r = headway.run({"drive": {"name": "elite3"}, "host": {"scheduler": "sptf"},
    ...                  "workload": {"requests": 1000}}, seed=7)
    >>> r.summary.requests, r.meta["scheduler"]
    (1000, 'sptf')

    A scheduler written in Python (first come, first served):

    >>> class Fifo:
    ...     def __init__(self): self.queue = []
    ...     def on_arrival(self, req, ctx): self.queue.append(req)
    ...     def decide(self, ctx):
    ...         return self.queue.pop(0) if self.queue and ctx.has_slot() else None
    >>> headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 100}},
    ...             scheduler=Fifo()).summary.requests
    100
    """
    if overrides:
        from headway._overrides import with_overrides

        text, origin = with_overrides(config, overrides)
    else:
        text, origin = source(config)
    parv_trace = None
    if trace is not None:
        parv_trace = _parv_trace(text, origin, trace)
        text = None
    with contextlib.ExitStack() as stack:
        if progress is True:
            from headway._progress import expected_requests, progress_bar

            callback = stack.enter_context(progress_bar(expected_requests(text, origin)))
        elif callable(progress):
            callback = progress
        else:
            callback = None
        summary, columns, meta = _headway.run(text, origin, seed, records, scheduler, callback,
                                              dict(class_schedulers) if class_schedulers else None,
                                              background_task, parv_trace)
    return Result(summary, columns, meta)


def _parv_trace(text: Optional[str], origin: Optional[str], trace: Mapping[str, Any]) -> str:
    """The TOML of the trace ``[workload]`` replayed on the DiskSim experiment ``origin``."""
    if text is not None or origin is None or not str(origin).endswith(".parv"):
        raise ValueError("trace= replays a trace on a DiskSim experiment: config must be a .parv file")
    if "path" not in trace:
        raise ValueError("trace= needs the trace's `path`")
    from headway._toml_text import to_toml

    table = {k: v for k, v in trace.items() if v is not None}
    if not os.path.isabs(os.fspath(table["path"])):
        table["path"] = os.path.join(os.path.dirname(os.path.abspath(origin)), os.fspath(table["path"]))
    return to_toml({"workload": {"kind": "trace", **table}})


def disks():  # -> pandas.DataFrame
    """The built-in drive catalog as a DataFrame, one row per drive.

    >>> import headway
    >>> "elite3" in set(headway.disks().name)
    True
    """
    import pandas as pd

    columns = [
        "name",
        "capacity_sectors",
        "capacity_bytes",
        "rpm",
        "zones",
        "cylinders",
        "surfaces",
        "mean_seek_ms",
        "actuators",
        "recording",
        "description",
    ]
    return pd.DataFrame(_headway.disks(), columns=columns)


def interfaces() -> List[Dict[str, Any]]:
    """The named host interfaces a drive can be put behind (``Drive(interface=...)``,
    ``[drive] interface``), the default (``validated``: the drive file's own bus) first. Each
    is a dict: ``name``, ``title``, ``payload_mb_s`` and ``sector_transfer_ms`` (``None`` for
    the drive's own bus) and ``source``, the standard the rate is from.

    >>> import headway
    >>> [i["name"] for i in headway.interfaces()][:3]
    ['validated', 'ultra2', 'ultra160']
    >>> ultra2 = next(i for i in headway.interfaces() if i["name"] == "ultra2")
    >>> round(ultra2["sector_transfer_ms"], 6), ultra2["payload_mb_s"]
    (0.0064, 80.0)
    """
    return list(_headway.interfaces())


def schedulers() -> List[str]:
    """Names of the built-in schedulers.

    >>> import headway
    >>> "sptf" in headway.schedulers()
    True
    """
    return list(_headway.schedulers())


def version() -> str:
    """Version of the simulator core.

    >>> import headway
    >>> headway.version() == headway.__version__
    True
    """
    return _headway.version()
