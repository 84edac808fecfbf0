"""A local sweep worker: ``python -m headway.sweeps.worker`` reads pickled tasks on stdin
and writes each run's outcome, pickled, on its original stdout, until stdin closes.

Workers are fresh interpreters started by module name, so they never import the script
that called :func:`headway.sweep`: a script without an ``if __name__ == "__main__":``
guard works as written (multiprocessing's spawn and forkserver re-run that script in
every worker)."""

from __future__ import annotations

import os
import pickle
import signal
import sys


def main() -> None:
    # The parent decides when a sweep stops (and ends its workers); Ctrl-C on the terminal
    # reaches the whole process group, and a worker's traceback would only add noise.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Outcomes travel on the original stdout; anything the run itself prints goes to stderr.
    results = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    tasks = sys.stdin.buffer

    from headway.sweeps.execute import run_task

    while True:
        try:
            task = pickle.load(tasks)
        except EOFError:
            return
        pickle.dump(run_task(task), results)
        results.flush()


if __name__ == "__main__":
    main()
