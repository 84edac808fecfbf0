"""The rebuild study: rebuild time against foreground impact for an array's rebuild policies.

:func:`reproduce` runs a 4+1 RAID 5 of Atlas 10K drives (stripe unit 64 sectors, a spare)
whose member ``d3`` fails early in the run, under an OLTP-like foreground (closed, ten
processes, 10 ms think time, 4 KiB requests, two reads to one write, uniform over the
volume), once for each rebuild policy:

* ``rate`` at several rates (MB/s of the volume's stripes),
* ``idle`` (a step once the members have been quiet for 5 ms),
* ``freeblock`` (the survivors read the rows in their foreground's rotational gaps), and
  ``freeblock+idle`` (the same, and at full speed when a member has no foreground),
* ``rate+spare-idle`` and ``freeblock+spare-idle`` (the fastest rate, and ``freeblock``,
  each with its writes onto the spare held until the spare has been quiet for 5 ms:
  ``spare_writes = "idle"``),

the same failure with no rebuild, the baseline, and ``scrub-idle``: the same failure with
no rebuild and a scrub from the failure, a step once the members have been quiet for 5 ms
(its ``rebuild_s`` and ``rows_fraction`` are the scrub's). Every run uses the same host: the
freeblock scheduler over SPTF with two commands at each drive; runs that are not
``freeblock`` turn its free reads off (``plan = false``), so the policies differ only in
how the rebuild is paced. It returns the tables as pandas DataFrames:

* ``policies``: per policy, the rebuild time (``rebuild_s``: from the failure to the last
  row written; empty when the rebuild did not finish within the run), the rows rebuilt
  (fraction), the foreground's mean response time over the rebuild's window (requests
  arriving from the failure until the rebuild ends, ``during_response_ms``), the baseline
  run's over the same window (``baseline_response_ms``), the increase
  (``response_increase``, a fraction: negative when ending degraded mode early outweighs
  what the rebuild costs) and the whole run's mean, each with its 95% interval over the
  seeds (``_ci95``).

>>> import headway.rebuild as rb
>>> r = rb.reproduce(quick=True, seeds=1, progress=False)
>>> sorted(r.policies.policy.unique())[:3]
['freeblock', 'freeblock+idle', 'freeblock+spare-idle']
>>> bool((r.policies.query("policy != 'none'").rows_fraction == 1.0).all())
True

The setting, the team's choices and the measured table: ``docs/arrays.md``.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import pandas as pd

from headway._intervals import aggregate_table
from headway._reproduction import Figures, plot_ci, write_reproduction
from headway._seeds import Seeds, plan_for, seed_list

__all__ = ["Reproduction", "reproduce"]

#: Rows of the rebuild (64-sector units on each member) and foreground requests per run.
FULL = {"rows": 400, "requests": 20000, "rates_mb_s": (0.5, 1.0, 2.0, 4.0)}
QUICK = {"rows": 100, "requests": 6000, "rates_mb_s": (1.0, 4.0)}
#: Member sectors per row (the stripe unit).
UNIT_SECTORS = 64
#: When the member fails (ms).
FAIL_AT_MS = 50.0
#: A case's work table starting with this is a scrub's, not a rebuild's.
SCRUB = "scrub: "


def _system(rows: int, requests: int, rebuild: Optional[str], free_reads: bool, idle_service: bool,
            seed: int) -> str:
    """The study's experiment as TOML text; ``rebuild`` is the rebuild table's keys, or
    ``scrub: `` and the scrub table's."""
    text = f"seed = {seed}\n"
    for i in range(6):
        text += f'[[devices]]\nname = "d{i}"\ndrive = "atlas10k"\nqueue_depth = 2\nmax_outstanding = 2\n\n'
    text += (
        '[[arrays]]\nname = "vol"\nlevel = "raid5"\nmembers = ["d0", "d1", "d2", "d3", "d4"]\n'
        f'stripe_unit_sectors = {UNIT_SECTORS}\nmember_sectors = {rows * UNIT_SECTORS}\nspare = "d5"\n'
        f'failure = {{ member = "d3", at_ms = {FAIL_AT_MS} }}\n'
    )
    if rebuild is not None and rebuild.startswith(SCRUB):
        text += f"scrub = {{ {rebuild[len(SCRUB):]} }}\n"
    elif rebuild is not None:
        text += f"rebuild = {{ {rebuild} }}\n"
    text += (
        f'\n[[workloads]]\ndevice = "vol"\nkind = "closed"\nprocesses = 10\nthink_ms = 10.0\n'
        f"requests = {requests}\nsize_sectors = 8\nalign_sectors = 8\nread_fraction = 0.667\n\n"
        '[host]\nscheduler = "freeblock"\n[host.options]\n'
        f"plan = {str(free_reads).lower()}\nidle_service = {str(idle_service).lower()}\n"
        'idle_chunk_sectors = 64\n[host.inner]\nscheduler = "sptf"\n'
    )
    return text


def _cases(rates: Sequence[float]) -> List[Tuple[str, Optional[float], Optional[str], bool, bool]]:
    """``(policy, rate, rebuild table, free reads, idle service)`` per run of a seed."""
    cases: List[Tuple[str, Optional[float], Optional[str], bool, bool]] = [("none", None, None, False, False)]
    cases += [("rate", r, f'policy = "rate", rate_mb_s = {r}', False, False) for r in rates]
    cases.append(("idle", None, 'policy = "idle", idle_ms = 5.0', False, False))
    cases.append(("freeblock", None, 'policy = "freeblock"', True, False))
    cases.append(("freeblock+idle", None, 'policy = "freeblock"', True, True))
    cases.append(("rate+spare-idle", rates[-1],
                  f'policy = "rate", rate_mb_s = {rates[-1]}, spare_writes = "idle", idle_ms = 5.0',
                  False, False))
    cases.append(("freeblock+spare-idle", None, 'policy = "freeblock", spare_writes = "idle", idle_ms = 5.0',
                  True, False))
    cases.append(("scrub-idle", None, f'{SCRUB}policy = "idle", idle_ms = 5.0, start_ms = {FAIL_AT_MS}',
                  False, False))
    return cases


def _foreground(r) -> Tuple[Any, Any]:
    """The volume's logical requests of run ``r``: arrival times (ns) and response times (ms)."""
    cols = r.columns()
    logical = cols["device"] == -1
    arrival = cols["arrival_ns"][logical]
    return arrival, (cols["done_ns"][logical] - arrival) / 1e6


def _window_mean(arrival, response, start_ns: float, end_ns: float) -> float:
    inside = (arrival >= start_ns) & (arrival < end_ns)
    return float(response[inside].mean()) if inside.any() else float("nan")


def _run_seed(args: Tuple[int, int, int, Sequence[float]]) -> List[Dict[str, Any]]:
    """Every case under one seed: a row per case. The foreground's impact is measured over
    the rebuild's window (from the failure to the rebuild's end, or the run's end), against
    the baseline run's requests in the same window."""
    import headway

    seed, rows, requests, rates = args
    fail_ns = FAIL_AT_MS * 1e6
    base_arrival = base_response = None
    out = []
    for policy, rate, rebuild, free, idle in _cases(rates):
        r = headway.run(_system(rows, requests, rebuild, free, idle, seed), records=True)
        arrival, response = _foreground(r)
        if policy == "none":
            base_arrival, base_response = arrival, response
        work = "scrub" if rebuild is not None and rebuild.startswith(SCRUB) else "rebuild"
        b = r.arrays[0].get(work) or {}
        finished = b.get("finished_ms")
        end_ns = float("inf") if finished is None else finished * 1e6
        during = _window_mean(arrival, response, fail_ns, end_ns)
        baseline = _window_mean(base_arrival, base_response, fail_ns, end_ns)
        out.append({
            "policy": policy,
            "rate_mb_s": rate,
            "rebuild_s": None if finished is None else (finished - FAIL_AT_MS) / 1e3,
            "rows_fraction": (b["rows_done"] / b["rows_total"]) if b else 0.0,
            "during_response_ms": during,
            "baseline_response_ms": baseline,
            "response_increase": during / baseline - 1.0,
            "mean_response_ms": r.summary["mean_response_ms"],
        })
    return out


@dataclass
class Reproduction:
    """The study's table (see the module's docstring)."""

    policies: pd.DataFrame
    options: Dict[str, Any] = field(default_factory=dict)

    @property
    def headline(self) -> Dict[str, Any]:
        """Rebuild time and response increase per policy (the fastest rate for ``rate``)."""
        h: Dict[str, Any] = {}
        for row in self.policies.itertuples():
            name = row.policy if row.policy != "rate" else f"rate_{row.rate_mb_s:g}"
            h[f"{name}_rebuild_s"] = None if pd.isna(row.rebuild_s) else float(row.rebuild_s)
            h[f"{name}_response_increase"] = float(row.response_increase)
        h["seeds"] = self.options.get("seeds")
        return h

    def write(self, out: Union[str, Path], plots: bool = True) -> List[Path]:
        """Write ``policies.csv``, ``headline.json`` and (``plots=True``) ``rebuild.png`` into
        ``out``; return the paths written."""
        return write_reproduction(out, {"policies": self.policies}, self.headline, self.options,
                                  self.plot if plots else None)

    def plot(self, out: Union[str, Path]) -> List[Path]:
        """Rebuild time against the foreground's response-time increase, a point per policy
        with its 95% intervals (a rebuild that did not finish within the run is left out)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figures = Figures(Path(out))
        fig, ax = plt.subplots(figsize=(6.5, 4.5))
        done = self.policies.dropna(subset=["rebuild_s"])
        for policy, rows in done.groupby("policy", sort=False):
            rows = rows.assign(response_increase_pct=100 * rows.response_increase)
            if "response_increase_ci95" in rows:
                rows = rows.assign(response_increase_pct_ci95=100 * rows.response_increase_ci95)
            line = plot_ci(ax, rows, "rebuild_s", "response_increase_pct", marker="o", label=policy,
                           linestyle="-" if policy == "rate" else "none")
            if "rebuild_s_ci95" in rows:
                ax.errorbar(rows.rebuild_s, rows.response_increase_pct, xerr=rows.rebuild_s_ci95, fmt="none",
                            capsize=3, color=line.lines[0].get_color())
            if policy == "rate":
                for r in rows.itertuples():
                    ax.annotate(f"{r.rate_mb_s:g} MB/s", (r.rebuild_s, r.response_increase_pct),
                                textcoords="offset points", xytext=(4, 4), fontsize=7)
        ax.axhline(0.0, color="0.35", linewidth=0.8)
        ax.set_xlabel("rebuild time (s)")
        ax.set_ylabel("foreground response during the rebuild vs. none (%)")
        ax.legend()
        ax.grid(alpha=0.3)
        reduced = "\n(--quick: reduced sizes)" if self.options.get("quick") else ""
        title = "4+1 RAID 5 rebuild: rebuild time against foreground impact" + reduced
        ax.set_title(title, fontsize=9)
        figures.save(fig, "rebuild.png", title)
        return figures.paths


def reproduce(
    quick: bool = False,
    seed: Optional[int] = None,
    progress: Union[bool, Callable[[str], Any]] = True,
    seeds: Union[int, Seeds, None] = None,
) -> Reproduction:
    """Run the rebuild study and return its table.

    ``quick=True`` runs the reduced sizes (100 rows to rebuild, 6,000 foreground requests,
    two rates: seconds); the full study rebuilds 400 rows under 20,000 requests at four
    rates. Every case runs under ``seeds`` seeds (a count, default 5 and 2 with ``quick``,
    or a :class:`headway.Seeds` plan: its ``workers`` local processes, default every core;
    ``until_ci`` and ``dask`` are not supported here) from the base ``seed`` (default 1).
    ``progress`` is ``True`` (a line on stderr per seed), ``False``, or a callable given
    each step's name.
    """
    from headway.errors import ConfigError

    plan = plan_for(quick, seed, seeds)
    if plan.until_ci is not None or plan.dask:
        raise ConfigError("the rebuild study runs a fixed number of seeds on local processes: "
                          "--until-ci and --dask are not supported")
    sizes = QUICK if quick else FULL
    seeds_used = seed_list(plan.first, plan.count)
    work = [(s, sizes["rows"], sizes["requests"], sizes["rates_mb_s"]) for s in seeds_used]
    say = progress if callable(progress) else (
        (lambda m: print(m, file=__import__("sys").stderr)) if progress else None)
    workers = min(len(work), plan.workers or os.cpu_count() or 1)
    if workers <= 1:
        per_seed = []
        for w in work:
            if say is not None:
                say(f"seed {w[0]}")
            per_seed.append(_run_seed(w))
    else:
        if say is not None:
            say(f"seeds {seeds_used[0]}-{seeds_used[-1]} on {workers} processes")
        with ProcessPoolExecutor(max_workers=workers) as pool:
            per_seed = list(pool.map(_run_seed, work))
    frames = [pd.DataFrame(rows) for rows in per_seed]
    table = aggregate_table(frames, ("rate_mb_s",))
    options = {"quick": quick, "seed": seeds_used[0], "seeds": seeds_used, "n_seeds": len(seeds_used),
               "rows": sizes["rows"], "unit_sectors": UNIT_SECTORS, "requests": sizes["requests"],
               "rates_mb_s": list(sizes["rates_mb_s"])}
    return Reproduction(policies=table, options=options)
