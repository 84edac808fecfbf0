"""Importing what comes after a run (rich, for a summary or a progress bar) while the run
simulates.

The simulator reports progress every ``FIRST_REPORT`` completions and once more at the
run's end, holding no lock of the interpreter in between: a thread started at the first
report imports meanwhile, on a free core if there is one. A run that ends before its first
report (a few milliseconds at the core's speed) starts no thread: one would cost it more
than it could save (docs/performance.md, "The Python command around the core")."""

from __future__ import annotations

import threading
from typing import Callable, Optional

FIRST_REPORT = 32_768


class Preload:
    """A progress hook ``(completed, now_ns)`` that starts ``load`` on a thread of its own
    at the run's first report; it returns whether ``load`` has finished.

    :meth:`join` must be called after the run, before the calling thread imports any module
    ``load`` imports: two threads importing one package at once can meet half-made
    modules."""

    def __init__(self, load: Callable[[], None], name: str) -> None:
        self._load, self._name = load, name
        self._thread: Optional[threading.Thread] = None
        self._done = False

    def __call__(self, completed: int, now_ns: int = 0) -> bool:
        if self._done:
            return True
        if self._thread is None:
            if completed >= FIRST_REPORT:
                self._thread = threading.Thread(target=self._quietly, name=self._name)
                try:
                    self._thread.start()
                except RuntimeError:  # no thread to be had: the caller imports as it would
                    self._thread, self._done = None, True
            return self._done
        self._done = not self._thread.is_alive()
        return self._done

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def _quietly(self) -> None:
        try:
            self._load()
        except Exception:
            # The caller imports the same modules again and reports a real failure as usual.
            pass
