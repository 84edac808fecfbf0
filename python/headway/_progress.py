"""A rich progress bar fed by the simulator's progress reports (every ~32k completions)."""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator, Optional, Union

from headway._preload import Preload

try:  # Python 3.11+
    import tomllib
except ImportError:  # pragma: no cover - older Pythons
    import tomli as tomllib  # type: ignore[no-redef]

ProgressFn = Callable[[int, int], None]


def expected_requests(text: Optional[str], origin: Optional[str]) -> Optional[int]:
    r"""Best-effort total for the bar: ``workload.requests``, or the sum over
    ``[[workloads]]`` when every entry states its count.

    >>> expected_requests('[[workloads]]\nrequests = 3\n[[workloads]]\nrequests = 4\n', None)
    7
    >>> expected_requests('[workload]\nrequests = 5\n', None)
    5
    """
    try:
        if text is None and origin is not None:
            with open(origin, "rb") as f:
                data = tomllib.load(f)
        elif text is not None:
            data = tomllib.loads(text)
        else:
            return None
        entries = data.get("workloads")
        if isinstance(entries, list) and entries:
            counts = [e.get("requests") if isinstance(e, dict) else None for e in entries]
            if all(isinstance(n, int) for n in counts):
                return sum(counts)
            return None
        n = data.get("workload", {}).get("requests")
        return int(n) if isinstance(n, int) else None
    except Exception:
        # The simulator reports bad configs properly; the bar just goes without a total.
        return None


@contextlib.contextmanager
def progress_bar(total: Optional[int], label: str = "simulating") -> Iterator[ProgressFn]:
    """Yield a callback ``(completed, now_ns)`` that drives a bar on stderr.

    rich is imported while the run goes on (:class:`headway._preload.Preload`), and the bar
    is drawn from the first report after that. A run that ends before its first report
    shows no bar: the bar is erased at the end anyway."""
    loaded = Preload(_import_bar, "import-progress-bar")
    with contextlib.ExitStack() as stack:
        draw: Optional[ProgressFn] = None

        def update(completed: int, now_ns: int) -> None:
            nonlocal draw
            if draw is None:
                if not loaded(completed):
                    return
                draw = stack.enter_context(_rich_bar(total, label))
            draw(completed, now_ns)

        try:
            yield update
        finally:
            loaded.join()


def _import_bar() -> None:
    import rich.progress  # noqa: F401


@contextlib.contextmanager
def _rich_bar(total: Optional[int], label: str) -> Iterator[ProgressFn]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    console = Console(file=sys.stderr)
    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn()]
    columns += [MofNCompleteColumn(), TextColumn("sim {task.fields[sim_s]:.1f} s"), TimeElapsedColumn()]
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(label, total=total, sim_s=0.0)

        def update(completed: int, now_ns: int) -> None:
            bar.update(task, completed=completed, sim_s=now_ns / 1e9)

        yield update


def step_status(progress: Union[bool, Callable[[str], Any]]):
    """A rich status line for ``progress=True``; the caller's callable as is; else nothing."""
    if callable(progress):
        return progress, None
    if not progress:
        return None, None
    import sys

    from rich.console import Console

    status = Console(file=sys.stderr).status("reproducing")
    status.start()
    return (lambda what: status.update(f"reproducing: {what}")), status
