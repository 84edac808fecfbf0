"""headway: a fast disk-drive simulator and I/O-scheduling framework.

A Rust core simulates; this package is its face: :func:`run` an experiment (TOML file,
dict or typed :class:`Config`), get a :class:`Result` with a summary and, on request,
per-request records as pandas/Arrow tables; plug in schedulers written in Python.

>>> import headway
>>> r = headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 500}})
>>> r.summary.requests
500
"""

from headway._headway import Completion, Context, Estimate, Request, Serve, TrackInfo, Wait
from headway.errors import (
    ConfigError,
    DriveParamsError,
    HeadwayError,
    InvariantError,
    PluginError,
    TraceError,
    UnknownNameError,
)

# Everything else loads on first use (PEP 562), so `import headway` (and with it every
# `headway` command, `--help` included) costs next to nothing until a feature is used:
# numpy/pandas/pyarrow come in only when a table is asked for.
_LAZY_NAMES = {
    "run": "headway.api",
    "disks": "headway.api",
    "interfaces": "headway.api",
    "schedulers": "headway.api",
    "version": "headway.api",
    "Array": "headway.config",
    "Config": "headway.config",
    "Device": "headway.config",
    "Drive": "headway.config",
    "Host": "headway.config",
    "Link": "headway.config",
    "Output": "headway.config",
    "Workload": "headway.config",
    "Live": "headway.live",
    "LiveCompletion": "headway.live",
    "Result": "headway.result",
    "Summary": "headway.result",
    "RecordsNotCollected": "headway.result",
    "Seeds": "headway._seeds",
}
_LAZY_MODULES = ("rotational", "traces", "validation", "sweeps")


def __getattr__(name: str):
    import importlib

    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    elif name in _LAZY_MODULES:
        value = importlib.import_module(f"headway.{name}")
    elif name == "__version__":
        value = importlib.import_module("headway.api").version()
    else:
        raise AttributeError(f"module 'headway' has no attribute '{name}'")
    globals()[name] = value
    return value


def sweep(spec, out, **options):  # -> pandas.DataFrame
    """Run a parameter sweep and return its runs table: see :func:`headway.sweeps.sweep`.

    >>> import headway, tempfile
    >>> spec = {"base": {"drive": {"name": "elite3"}, "workload": {"requests": 100}},
    ...         "grid": {"drive.queue_depth": [1, 2]}}
    >>> headway.sweep(spec, tempfile.mkdtemp(), workers=1, progress=False)["status"].tolist()
    ['ok', 'ok']
    """
    from headway.sweeps import sweep as run_sweep

    return run_sweep(spec, out, **options)


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "run",
    "sweep",
    "disks",
    "interfaces",
    "schedulers",
    "version",
    "Array",
    "Config",
    "Device",
    "Drive",
    "Host",
    "Link",
    "Output",
    "Workload",
    "Result",
    "Summary",
    "RecordsNotCollected",
    "Live",
    "LiveCompletion",
    "Seeds",
    "Request",
    "Completion",
    "Context",
    "Estimate",
    "Wait",
    "Serve",
    "TrackInfo",
    "HeadwayError",
    "ConfigError",
    "DriveParamsError",
    "TraceError",
    "UnknownNameError",
    "PluginError",
    "InvariantError",
    "traces",
    "rotational",
    "validation",
    "sweeps",
]
