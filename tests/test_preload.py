"""rich (the summary's printer, the progress bar) imported on a thread of its own while a
long run simulates (``headway._preload.Preload``), and not for a short one."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

from headway._preload import FIRST_REPORT, Preload

# In a fresh interpreter, so that whether rich is loaded, and by which thread, is the
# run's doing alone.
PROBE = r"""
import json, sys, threading
import headway
from headway.cli.report import preload_printer

requests = int(sys.argv[1])
hook = preload_printer()
seen = []

def progress(completed, now_ns):
    hook(completed, now_ns)
    seen.append([completed, threading.active_count(), "rich.table" in sys.modules])

before = "rich" in sys.modules
r = headway.run({"drive": {"name": "elite3"}, "workload": {"requests": requests}}, progress=progress)
hook.join()
print(json.dumps({"before": before, "seen": seen, "after": "rich.table" in sys.modules,
                  "threads": threading.active_count(), "requests": r.summary.requests}))
"""


def probe(requests: int, script: str = PROBE) -> dict:
    out = subprocess.run([sys.executable, "-c", script, str(requests)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_long_run_imports_the_printer_on_a_thread_while_it_simulates():
    got = probe(3 * 32_768)
    assert got["requests"] == 3 * 32_768
    assert got["before"] is False
    # The first report (at 32,768 completions) starts the thread; the run goes on meanwhile.
    first = got["seen"][0]
    assert first[0] >= 32_768 and first[1] == 2, got["seen"]
    assert len(got["seen"]) >= 3
    assert got["after"] is True and got["threads"] == 1


def test_a_short_run_starts_no_thread():
    got = probe(1_000)
    assert got["requests"] == 1_000
    assert [s[1] for s in got["seen"]] == [1]
    assert got["after"] is False


def test_the_command_prints_the_same_summary_either_way(cli, tmp_path):
    """A run long enough for the thread prints the summary as the short path does: the same
    rows, nothing on stderr, and the process ends (no thread left behind)."""
    cfg = tmp_path / "long.toml"
    cfg.write_text('[drive]\nname = "elite3"\n[workload]\nrequests = 40000\n')
    out = cli("run", cfg, "--no-progress", "--json", tmp_path / "s.json")
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["requests"] == 40_000
    for label in ("requests", "40,000", "response p99.9", f"{s['p99_response_ms']:,.3f}",
                  "queue length max"):
        assert label in out.stdout, label


def test_preload_starts_its_thread_at_the_first_report_and_says_when_done():
    ran = []
    gate = threading.Event()

    def load():
        gate.wait(10)
        ran.append(threading.current_thread().name)

    hook = Preload(load, "probe-loader")
    assert hook(FIRST_REPORT - 1) is False and threading.active_count() == 1
    assert hook(FIRST_REPORT) is False  # started, not finished
    assert threading.active_count() == 2
    assert hook(2 * FIRST_REPORT) is False
    gate.set()
    hook.join()
    assert hook(3 * FIRST_REPORT) is True
    assert ran == ["probe-loader"]


def test_a_failing_load_leaves_the_caller_to_import_as_usual():
    def load():
        raise ImportError("no such module")

    hook = Preload(load, "probe-loader")
    hook(FIRST_REPORT)
    hook.join()
    assert hook(2 * FIRST_REPORT) is True


BAR_PROBE = r"""
import json, sys
import headway
r = headway.run({"drive": {"name": "elite3"}, "workload": {"requests": int(sys.argv[1])}},
                progress=True)
print(json.dumps({"requests": r.summary.requests, "rich": "rich.progress" in sys.modules}))
"""


def test_the_progress_bar_loads_rich_only_for_a_run_that_reaches_its_first_report():
    assert probe(1_000, BAR_PROBE) == {"requests": 1_000, "rich": False}
    assert probe(3 * FIRST_REPORT, BAR_PROBE) == {"requests": 3 * FIRST_REPORT, "rich": True}
