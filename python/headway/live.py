"""A live simulation: headway driven step by step from outside, the disk inside another
simulator (see ``docs/emulation.md``).

>>> import headway
>>> live = headway.Live({"drive": {"name": "elite3"}})
>>> a = live.submit("read", lbn=1000, sectors=8, at_ns=0, tag="first")
>>> b = live.submit("write", lbn=500_000, sectors=16, at_ns=2_000_000, tag="second")
>>> done = []
>>> while (t := live.next_event_ns()) is not None:
...     done += live.advance_to(t)
>>> [c.tag for c in done], done[0].id == a
(['first', 'second'], True)
>>> done[1].arrival_ns, done[1].response_ns > 0
(2000000, True)
>>> live.summary().requests
2
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from headway import _headway
from headway._source import source
from headway.result import Result, Summary

if TYPE_CHECKING:
    from headway.config import ConfigLike

__all__ = ["Live", "LiveCompletion"]


@dataclass(frozen=True)
class LiveCompletion:
    """A submitted request, completed; times in simulated nanoseconds. ``device`` is the
    device that served it (-1: the host served it from memory); ``request_id`` is its
    ``id`` in :meth:`Live.records`."""

    id: int
    tag: Any
    request_id: int
    device: int
    op: str
    lbn: int
    sectors: int
    arrival_ns: int
    dispatch_ns: int
    completion_ns: int

    @property
    def response_ns(self) -> int:
        """Arrival to completion."""
        return self.completion_ns - self.arrival_ns


_FIELDS = [
    "id",
    "tag",
    "request_id",
    "device",
    "op",
    "lbn",
    "sectors",
    "arrival_ns",
    "dispatch_ns",
    "completion_ns",
]


class Live:
    """The run of a configuration (a TOML path or text, a dict, a :class:`headway.Config`)
    driven from outside: :meth:`submit` requests at or after the clock, ask
    :meth:`next_event_ns` when something is due, :meth:`advance_to` a time and get the
    requests completed by then. The host's scheduler, predictor, every configured device
    and the host's own work run as in :func:`headway.run`; the configuration's workloads
    only name its classes and processes. Bad input raises :class:`headway.ConfigError`.

    >>> import headway
    >>> live = headway.Live({"drive": {"name": "elite3"}, "host": {"scheduler": "sptf"}})
    >>> for k in range(4):
    ...     _ = live.submit("read", lbn=k * 900_000, sectors=8, at_ns=0)
    >>> live.close()
    >>> len(live.finish()), live.outstanding
    (4, 0)
    >>> len(live.records())
    4
    """

    def __init__(self, config: ConfigLike = None) -> None:
        text, origin = source(config)
        self._core = _headway.LiveCore(text, origin)
        self._tags: Dict[int, Any] = {}

    @property
    def now_ns(self) -> int:
        """The clock: every event up to it has been processed."""
        return self._core.now_ns()

    @property
    def outstanding(self) -> int:
        """Submitted requests not yet completed."""
        return self._core.outstanding()

    def submit(
        self,
        op: str,
        lbn: int,
        sectors: int,
        at_ns: int,
        tag: Any = None,
        device: int = 0,
        process: int = 0,
        class_: int = 0,
    ) -> int:
        """Submit a request (``op`` ``"read"`` or ``"write"``) to arrive at ``at_ns``, not
        before the clock, on ``device`` (index in the configuration's devices). ``process``
        is the stream the host's schedulers see, ``class_`` the class index; ``tag`` comes
        back with the completion. Returns the request's id."""
        rid = self._core.submit(op, lbn, sectors, at_ns, device, process, class_)
        self._tags[rid] = tag
        return rid

    def next_event_ns(self) -> Optional[int]:
        """When the next event is due, or ``None`` when nothing is pending."""
        return self._core.next_event_ns()

    def advance_to(self, ns: int, frame: bool = False):  # -> List[LiveCompletion] | DataFrame
        """Process every event up to ``ns`` and move the clock there; the requests
        completed meanwhile, in completion order, as :class:`LiveCompletion` objects or
        (``frame=True``) a pandas DataFrame with ``response_ns``."""
        return self._completions(self._core.advance_to(ns), frame)

    def finish(self, frame: bool = False):  # -> List[LiveCompletion] | DataFrame
        """Process every pending event; the requests completed meanwhile, as
        :meth:`advance_to` returns them."""
        return self._completions(self._core.finish(), frame)

    def close(self) -> None:
        """Say that nothing more will be submitted (a later :meth:`submit` is refused). A
        run closed before the clock reaches its last request's arrival numbers its
        host-made requests as :func:`headway.run` does."""
        self._core.close()

    def summary(self) -> Summary:
        """The run's summary so far, as :attr:`headway.Result.summary`."""
        import json

        return Summary(json.loads(self._core.summary_json()))

    def records(self):  # -> pandas.DataFrame
        """One row per request completed so far (host-made work too), as
        :attr:`headway.Result.requests`."""
        return Result(self._core.summary_json(), self._core.records(), "{}").requests

    def _completions(self, rows: List[tuple], frame: bool):
        done = [
            LiveCompletion(
                rid,
                self._tags.pop(rid, None),
                request_id,
                -1 if device == 0xFFFF else device,
                "read" if is_read else "write",
                lbn,
                sectors,
                arrival_ns,
                dispatch_ns,
                completion_ns,
            )
            for (rid, request_id, device, is_read, lbn, sectors, arrival_ns, dispatch_ns,
                 completion_ns) in rows
        ]
        if not frame:
            return done
        import pandas as pd

        df = pd.DataFrame([[getattr(c, f) for f in _FIELDS] for c in done], columns=_FIELDS)
        df["response_ns"] = df["completion_ns"] - df["arrival_ns"]
        return df
