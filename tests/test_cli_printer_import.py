"""The summary's printer (rich) imported on a thread of its own while a long run simulates
(``headway.cli.report.PrinterImport``), and not for a short one."""

from __future__ import annotations

import json
import subprocess
import sys

# In a fresh interpreter, so that whether rich is loaded, and by which thread, is the
# run's doing alone.
PROBE = r"""
import json, sys, threading
import headway
from headway.cli.report import PrinterImport

requests = int(sys.argv[1])
hook = PrinterImport()
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


def probe(requests: int) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, str(requests)], capture_output=True,
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
