"""Exceptions headway raises. All derive from :class:`HeadwayError`; ``str(e)`` is the
simulator's own message, naming the file, line and key at fault.

- :class:`ConfigError`: an experiment file/dict has a wrong, missing or impossible key.
- :class:`DriveParamsError`: a drive parameter file is malformed.
- :class:`TraceError`: a trace record is malformed.
- :class:`UnknownNameError`: a drive/scheduler/predictor/format name is unknown (also a
  :class:`LookupError`); the message lists the known names.
- :class:`PluginError`: a scheduler written in Python failed; the original exception is
  its ``__cause__``.
- :class:`InvariantError`: a scheduler or device broke a simulator invariant.

Files that cannot be read raise the usual :class:`OSError` subclasses
(:class:`FileNotFoundError`, ...).

>>> import headway
>>> try:
...     headway.run({"drive": {"name": "nosuchdrive"}})
... except headway.UnknownNameError as e:
...     print(str(e).split(";")[0])
unknown drive `nosuchdrive`
"""

from headway._headway import (
    ConfigError,
    DriveParamsError,
    HeadwayError,
    InvariantError,
    PluginError,
    TraceError,
    UnknownNameError,
)

__all__ = [
    "HeadwayError",
    "ConfigError",
    "DriveParamsError",
    "TraceError",
    "UnknownNameError",
    "PluginError",
    "InvariantError",
]
