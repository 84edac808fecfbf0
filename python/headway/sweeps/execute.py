"""Running a sweep's runs: on a local process pool (every core) or a Dask cluster. Each run
is independent and deterministic given its experiment and seed, so both give the same rows."""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Tuple, Union

from headway.sweeps.spec import Run, Sweep


class Call(NamedTuple):
    """A task that is not an experiment file's run: the binding's function ``function``
    called with ``kwargs`` (a reproduction under one seed, say); its outcome is what the
    function returns."""

    function: str
    kwargs: Dict[str, Any]


# What a worker gets: everything needed to run one experiment, as plain data.
Task = Union[Tuple[Dict[str, Any], Optional[str], int], Call]
Outcome = Tuple[Optional[Any], Optional[str]]


def run_task(task: Task) -> Outcome:
    """``(summary, None)`` or ``(None, error message)``: a failing run never raises, so one
    bad grid point cannot stop the sweep."""
    import json

    from headway import _headway
    from headway.config import to_toml

    if isinstance(task, Call):
        try:
            return getattr(_headway, task.function)(**task.kwargs), None
        except Exception as e:  # noqa: BLE001 - the message is the run's record
            return None, f"{type(e).__name__}: {e}"
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
    """On a pool of worker processes, one per core by default; results as they finish."""
    workers = min(workers or os.cpu_count() or 1, len(work))
    if workers <= 1:
        for run, task in work:
            yield run, run_task(task)
        return
    yield from _WorkerPool(workers).map(work)


class _WorkerPool:
    """Worker interpreters started as ``python -m headway.sweeps.worker`` (not
    multiprocessing: its spawn and forkserver methods re-import the caller's script in each
    worker, and fork copies the parent's threads mid-lock). One feeding thread per worker
    hands it the next task and collects the outcome."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.procs: List["subprocess.Popen[bytes]"] = []
        self.lock = threading.Lock()
        self.stopping = False

    def _start(self) -> "subprocess.Popen[bytes]":
        import headway

        env = dict(os.environ)
        # The workers import this very package, wherever it was imported from.
        package_root = str(Path(headway.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        proc = subprocess.Popen(
            [sys.executable, "-m", "headway.sweeps.worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        with self.lock:
            self.procs.append(proc)
            if self.stopping:  # the sweep stopped while this worker started
                proc.terminate()
        return proc

    def _feed(self, todo: "queue.Queue[Tuple[Run, Task]]", done: "queue.Queue[Tuple[Run, Outcome]]") -> None:
        proc = None
        while not self.stopping:
            try:
                run, task = todo.get_nowait()
            except queue.Empty:
                break
            if proc is None:
                proc = self._start()
            try:
                pickle.dump(task, proc.stdin)
                proc.stdin.flush()
                outcome = pickle.load(proc.stdout)
            except (EOFError, OSError, pickle.UnpicklingError):
                code = proc.wait()
                outcome = (None, f"WorkerError: the worker process ended (exit code {code}) during this run")
                proc = None
            done.put((run, outcome))
        if proc is not None:
            proc.stdin.close()
            proc.wait()

    def map(self, work: List[Tuple[Run, Task]]) -> Iterator[Tuple[Run, Outcome]]:
        todo: "queue.Queue[Tuple[Run, Task]]" = queue.Queue()
        for item in work:
            todo.put(item)
        done: "queue.Queue[Tuple[Run, Outcome]]" = queue.Queue()
        threads = [threading.Thread(target=self._feed, args=(todo, done), daemon=True) for _ in range(self.workers)]
        for t in threads:
            t.start()
        try:
            for _ in work:
                yield done.get()
        finally:
            self.stopping = True
            with self.lock:
                procs = list(self.procs)
            for proc in procs:
                if proc.poll() is None:
                    proc.terminate()
            for t in threads:
                t.join()
            for proc in procs:
                proc.wait()


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
