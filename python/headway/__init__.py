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
from headway.api import disks, run, schedulers, version
from headway.config import Config, Device, Drive, Host, Link, Output, Workload
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
from headway import rotational, traces, validation

__version__ = version()

__all__ = [
    "run",
    "disks",
    "schedulers",
    "version",
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
]
