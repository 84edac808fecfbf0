"""The cyclic garbage collector kept off a command's start.

Loading click and a command's modules makes tens of thousands of objects (functions,
classes, their dictionaries) that all live as long as the process, so collections during
the imports find almost nothing to free, and every collection afterwards walks them all
again: together about 3% of the instructions of a short replay (docs/performance.md,
"The Python command around the core"). No import here but `gc`: this module
loads before the collector is held off."""

from __future__ import annotations

import gc

_freezing = False


def command_process() -> None:
    """The process is the ``headway`` command's own (not a program that imported headway, nor
    a test running the command in its process): what it has loaded so far, and what each
    :func:`paused` block loads from now on, is left out of later collections
    (``gc.freeze``)."""
    global _freezing
    _freezing = True
    gc.freeze()


class _Paused:
    def __enter__(self) -> None:
        self._collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        if _freezing:
            gc.freeze()
        if self._collecting:
            gc.enable()


def paused() -> _Paused:
    """A ``with`` block without collections; the collector is left on or off as it was
    found."""
    return _Paused()
