"""headway: a fast disk-drive simulator and I/O-scheduling framework.

A Rust core simulates; this package is its face: :func:`run` an experiment (TOML file,
dict or typed :class:`Config`), get a :class:`Result` with a summary and, on request,
per-request records as pandas/Arrow tables; plug in schedulers written in Python.

>>> import headway
>>> r = headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 500}})
>>> r.summary.requests
500
"""

from headway._headway import Completion, Context, Estimate, Request, Wait
from headway.api import disks, run, schedulers, version
from headway.config import Config, Drive, Host, Link, Output, Workload
from headway.errors import (
    ConfigError,
    DriveParamsError,
    HeadwayError,
    InvariantError,
    PluginError,
    TraceError,
    UnknownNameError,
)
from headway.result import RecordsNotCollected, Result, Summary

__version__ = version()

# Submodules that pull in pandas/numpy/pyarrow load on first use (PEP 562), so
# `import headway` and `headway --help` stay fast.
_LAZY_MODULES = ("rotational", "traces", "validation", "sweeps")


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        import importlib

        module = importlib.import_module(f"headway.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'headway' has no attribute '{name}'")


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

__all__ = [
    "run",
    "sweep",
    "disks",
    "schedulers",
    "version",
    "Config",
    "Drive",
    "Host",
    "Link",
    "Output",
    "Workload",
    "Result",
    "Summary",
    "RecordsNotCollected",
    "Request",
    "Completion",
    "Context",
    "Estimate",
    "Wait",
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
