"""The options every ``headway reproduce`` command shares: how many seeds each point runs,
the stopping rule on the intervals, and where the seeds run."""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional

import click


def seed_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--seeds``, ``--until-ci``, ``--max-seeds``, ``--dask`` and ``--workers`` to a
    reproduce command; it receives them as one ``seeds`` argument (a
    :class:`headway.Seeds`, the base seed and ``--quick`` filled in by ``reproduce``)."""
    from headway._seeds import DEFAULT_MAX_SEEDS, DEFAULT_SEEDS, QUICK_SEEDS

    @click.option("--seeds", "n_seeds", type=click.IntRange(min=1),
                  help=f"Seeds per point (default {DEFAULT_SEEDS}; {QUICK_SEEDS} with --quick), from --seed up: "
                  "tables and headline give each point's mean and 95% interval.")
    @click.option("--until-ci", type=click.FloatRange(min=0.0, min_open=True), metavar="FRACTION",
                  help="Add seeds until every headline number's 95% interval half-width is within "
                  "FRACTION of its mean (e.g. 0.05), up to --max-seeds.")
    @click.option("--max-seeds", type=click.IntRange(min=2), default=DEFAULT_MAX_SEEDS, show_default=True,
                  help="The most seeds --until-ci runs.")
    @click.option("--dask", "dask_address", metavar="ADDRESS",
                  help="Run the seeds on a Dask cluster (a scheduler address, or 'local').")
    @click.option("--workers", type=click.IntRange(min=1), help="Local processes (default: every core).")
    @functools.wraps(command)
    def wrapped(*args: Any, n_seeds: Optional[int], until_ci: Optional[float], max_seeds: int,
                dask_address: Optional[str], workers: Optional[int], **kwargs: Any) -> Any:
        from headway._seeds import Seeds
        from headway.errors import ConfigError

        try:
            plan = Seeds(n=n_seeds, until_ci=until_ci, max_seeds=max_seeds, dask=dask_address, workers=workers)
        except ConfigError as e:
            raise click.UsageError(str(e)) from None
        return command(*args, seeds=plan, **kwargs)

    return wrapped
