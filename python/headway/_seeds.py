"""Running a reproduction under several seeds on the sweep engine (a process per core, or a
Dask cluster), with the stopping rule of a paper that ran until its intervals were narrow.

Seeds come from the base seed: ``base, base + 1, ...``, so the first seed's run is the
one-seed reproduction of that base seed, and the same command gives the same tables.

>>> seed_list(1, 3)
[1, 2, 3]
>>> Seeds(quick=True).count, Seeds().count
(2, 5)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from headway._intervals import aggregate_headline, aggregate_table, relative_widths
from headway._progress import step_status

#: Seeds per point by default, and under ``--quick``.
DEFAULT_SEEDS, QUICK_SEEDS = 5, 2
#: The most seeds ``until_ci`` runs before it stops with intervals still wider.
DEFAULT_MAX_SEEDS = 20
#: The first seed when none is given (the reproductions' own default).
DEFAULT_BASE_SEED = 1


def seed_list(base: int, n: int) -> List[int]:
    """The ``n`` seeds of base seed ``base``."""
    return [base + i for i in range(n)]


@dataclass(frozen=True)
class Seeds:
    """How many seeds a reproduction runs and where.

    ``count``: seeds per point (default 5, 2 with ``quick``); ``base``: the first seed;
    ``until_ci``: keep adding seeds until every numeric headline key's 95% interval
    half-width is at most this fraction of its mean (``count`` is then the first batch),
    up to ``max_seeds``; ``dask``: a Dask scheduler address (``local``: a LocalCluster);
    ``workers``: local processes (default: every core)."""

    quick: bool = False
    n: Optional[int] = None
    base: Optional[int] = None
    until_ci: Optional[float] = None
    max_seeds: int = DEFAULT_MAX_SEEDS
    dask: Optional[str] = None
    workers: Optional[int] = None

    @property
    def count(self) -> int:
        if self.n is not None:
            return self.n
        return QUICK_SEEDS if self.quick else DEFAULT_SEEDS

    @property
    def first(self) -> int:
        return DEFAULT_BASE_SEED if self.base is None else self.base

    def __post_init__(self) -> None:
        from headway.errors import ConfigError

        if self.n is not None and self.n < 1:
            raise ConfigError(f"seeds: {self.n} (at least 1)")
        if self.until_ci is not None and not self.until_ci > 0:
            raise ConfigError(f"until_ci: {self.until_ci} (a fraction of the mean above 0, e.g. 0.05)")
        if self.max_seeds < max(2, self.n or 0):
            raise ConfigError(f"max_seeds: {self.max_seeds} (at least 2 and at least seeds)")


def _raise(seed: int, error: str) -> None:
    """A seed's error from a worker, raised as the headway error it was there."""
    from headway import errors

    name, _, message = error.partition(": ")
    kind = getattr(errors, name, None) if name in errors.__all__ else None
    raise (kind or errors.HeadwayError)(f"seed {seed}: {message if kind else error}")


def _on_engine(function: str, kwargs: Mapping[str, Any], seeds: Sequence[int], plan: Seeds,
               workers: Optional[int]) -> Dict[int, Any]:
    """The binding's ``function`` under each seed on the sweep engine: seed -> JSON text,
    or seed -> the error's text (raised by the caller, in the caller's thread)."""
    from headway.sweeps.execute import Call, run_dask, run_local
    from headway.sweeps.spec import Run

    work = [(Run(index=i, point=0, params=(), seed=s, run_id=f"{function}-seed{s}"),
             Call(function, {**kwargs, "seed": s})) for i, s in enumerate(seeds)]
    outcomes = run_dask(work, plan.dask) if plan.dask else run_local(work, workers)
    return {run.seed: (text, error) for run, (text, error) in outcomes}


def _run_batch(function: str, kwargs: Mapping[str, Any], seeds: Sequence[int], plan: Seeds,
               progress: Optional[Callable[[str], Any]]) -> List[str]:
    """The JSON texts of ``function`` under ``seeds``, in seed order. Without Dask the
    first seed runs in this process (``progress`` sees its steps, and its error is raised
    as it is) while the others run on the plan's worker processes."""
    import threading

    from headway import _headway

    if plan.dask:
        found = _on_engine(function, kwargs, seeds, plan, plan.workers)
    else:
        found = {}
        rest = list(seeds[1:])
        # As many workers as cores beside this process: the first seed is one run among
        # several, and a worker left idle at the end would cost more than the overlap.
        others = plan.workers or os.cpu_count() or 1

        def elsewhere() -> None:
            found.update(_on_engine(function, kwargs, rest, plan, others))

        thread = threading.Thread(target=elsewhere, daemon=True)
        if rest:
            thread.start()
        here = getattr(_headway, function)(**kwargs, seed=seeds[0], progress=progress)
        if rest:
            if progress is not None:
                progress(f"seed {seeds[0]} done; waiting for seeds {rest[0]}-{rest[-1]}")
            thread.join()
        found[seeds[0]] = (here, None)
    for s in seeds:
        text, error = found[s]
        if error is not None:
            _raise(s, error)
    return [found[s][0] for s in seeds]


def run_seeds(function: str, kwargs: Mapping[str, Any], plan: Seeds,
              progress: Optional[Callable[[str], Any]] = None,
              ) -> Tuple[List[int], List[Dict[str, Any]], Dict[str, Any]]:
    """Run ``_headway.FUNCTION(**kwargs, seed=s)`` for the plan's seeds and return
    ``(seeds, parsed results, what the plan did)``; ``progress`` is given the first seed's
    steps."""
    seeds = seed_list(plan.first, plan.count)
    results = [json.loads(t) for t in _run_batch(function, kwargs, seeds, plan, progress)]
    done: Dict[str, Any] = {}
    if plan.until_ci is not None:
        step = max(2, plan.workers or os.cpu_count() or 1)
        while True:
            wide = [(k, w) for k, w in relative_widths(aggregate_headline([r["headline"] for r in results]))
                    if w > plan.until_ci]
            if not wide or len(seeds) >= plan.max_seeds:
                break
            more = seed_list(seeds[-1] + 1, min(step, plan.max_seeds - len(seeds)))
            if progress is not None:
                progress(f"{len(wide)} headline intervals wider than {plan.until_ci:g} of the mean: "
                         f"seeds {more[0]}-{more[-1]}")
            results += [json.loads(t) for t in _run_batch(function, kwargs, more, plan, None)]
            seeds += more
        done.update(until_ci=plan.until_ci, max_seeds=plan.max_seeds,
                    stopped="within" if not wide else "max_seeds",
                    widest=[k for k, _ in sorted(wide, key=lambda kw: -kw[1])[:5]])
    return seeds, results, done


def combine(results: Sequence[Mapping[str, Any]], tables: Sequence[str],
            coordinates: Sequence[str]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """``(tables, headline)`` over the seeds' results: each table aggregated
    (:func:`headway._intervals.aggregate_table`), the headline with its ``_ci95`` keys."""
    import pandas as pd

    out = {name: aggregate_table([pd.DataFrame(r.get(name, [])) for r in results], coordinates)
           for name in tables}
    return out, aggregate_headline([r["headline"] for r in results])


def reproduce_seeds(function: str, kwargs: Mapping[str, Any], plan: Seeds, tables: Sequence[str],
                    coordinates: Sequence[str], progress: Any = True,
                    ) -> Tuple[Dict[str, Any], Dict[str, Any], Dict[str, Any]]:
    """A reproduction's ``(tables, headline, options)`` over the plan's seeds: what every
    paper's ``reproduce`` does with its binding function. ``options`` are the core's (the
    first seed's) with the seeds used; ``headline`` also lists them (``seeds``)."""

    cb, status = step_status(progress)
    try:
        seeds, results, done = run_seeds(function, kwargs, plan, cb)
    finally:
        if status is not None:
            status.stop()
    frames, headline = combine(results, tables, coordinates)
    headline["seeds"] = seeds
    # The core's options (its defaults filled in) as the first seed ran them.
    options = {**results[0].get("options", {}), "seed": seeds[0], "seeds": seeds, "n_seeds": len(seeds),
               **done}
    return frames, headline, options


def plan_for(quick: bool, seed: Optional[int], seeds: "int | Seeds | None") -> Seeds:
    """A reproduction's plan from its arguments: ``seeds`` a count, a :class:`Seeds`, or
    ``None`` (the default count); ``seed`` the base seed unless the plan names one."""
    from dataclasses import replace

    if isinstance(seeds, Seeds):
        return replace(seeds, quick=quick, base=seed if seeds.base is None else seeds.base)
    return Seeds(quick=quick, n=seeds, base=seed)
