"""Running a sweep's runs: on a local process pool (every core) or a Dask cluster. Each run
is independent and deterministic given its experiment and seed, so both give the same rows."""

from __future__ import annotations

import os
import time
from typing import Any, Dict, Iterator, List, Optional, Tuple

from headway.sweeps.spec import Run, Sweep

# What a worker gets: everything needed to run one experiment, as plain data.
Task = Tuple[Dict[str, Any], Optional[str], int]
Outcome = Tuple[Optional[Dict[str, Any]], Optional[str]]


def run_task(task: Task) -> Outcome:
    """``(summary, None)`` or ``(None, error message)``: a failing run never raises, so one
    bad grid point cannot stop the sweep."""
    import json

    from headway import _headway
    from headway.config import to_toml

    experiment, origin, seed = task
    try:
        # The binding itself, with `origin` so relative paths in the base resolve as they
        # would for the base file run alone.
        summary_json, _, _ = _headway.run(to_toml(experiment), origin, seed, False, None, None)
        return json.loads(summary_json), None
    except Exception as e:  # noqa: BLE001 - the message is the run's record
        return None, f"{type(e).__name__}: {e}"


def tasks_for(sweep: Sweep, runs: List[Run]) -> List[Tuple[Run, Task]]:
    return [(r, (sweep.experiment(r), sweep.origin, r.seed)) for r in runs]


def run_local(work: List[Tuple[Run, Task]], workers: Optional[int] = None) -> Iterator[Tuple[Run, Outcome]]:
    """On a pool of processes, one per core by default; results as they finish."""
    import concurrent.futures as cf
    import multiprocessing as mp

    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(work) == 1:
        for run, task in work:
            yield run, run_task(task)
        return
    # forkserver, not fork: the parent may hold threads (Arrow's, Dask's) that fork would
    # copy mid-lock.
    method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context(method)) as pool:
        futures = {pool.submit(run_task, task): run for run, task in work}
        try:
            for fut in cf.as_completed(futures):
                yield futures[fut], fut.result()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise


def run_dask(work: List[Tuple[Run, Task]], address: str) -> Iterator[Tuple[Run, Outcome]]:
    """On a Dask distributed cluster at ``address`` (``local``: a LocalCluster here, one
    single-threaded worker process per core)."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        from headway.errors import ConfigError

        raise ConfigError(
            "--dask needs Dask distributed: pip install 'headway[dask]' (or 'dask[distributed]')"
        ) from None
    cluster = None
    if address == "local":
        cluster = LocalCluster(
            n_workers=os.cpu_count() or 1, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    else:
        client = Client(address)
    try:
        futures = {}
        for run, task in work:
            fut = client.submit(run_task, task, key=f"headway-run-{run.run_id}-{time.time_ns()}", pure=False)
            futures[fut] = run
        for fut in as_completed(futures):
            yield futures[fut], fut.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
