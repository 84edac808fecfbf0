"""`headway validate`: the shipped real-drive traces, per-request output, plot, bad input."""

import csv
import json
import subprocess
import sys


def headway(*args, **kw):
    return subprocess.run([sys.executable, "-m", "headway", *args], capture_output=True, text=True, **kw)


def test_validate_a_shipped_trace_meets_disksims_demerit(tmp_path):
    out_csv = tmp_path / "pairs.csv"
    out_png = tmp_path / "cdf.png"
    out_json = tmp_path / "report.json"
    r = headway("validate", "atlas10k", "--requests-out", str(out_csv), "--plot", str(out_png), "--json", str(out_json))
    assert r.returncode == 0, r.stderr
    assert "demerit" in r.stdout and "DiskSim 4.0: 0.268" in r.stdout
    report = json.loads(out_json.read_text())
    assert report["requests"] == 10000
    assert report["demerit_ms"] <= 0.268
    rows = list(csv.reader(out_csv.open()))
    assert rows[0] == ["index", "measured_ms", "simulated_ms"]
    assert len(rows) == 10001
    # Trace order: the first request of the shipped trace was measured at 663 us.
    assert rows[1][0] == "0" and abs(float(rows[1][1]) - 0.663) < 1e-9
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_validate_a_trace_file_names_its_drive(tmp_path):
    t = tmp_path / "mine.trace"
    t.write_text("R Miss 1000 8 9000.0 5000.0\nW Miss 50000 8 7000.0 5000.0\n")
    r = headway("validate", str(t), "--drive", "st41601n")
    assert r.returncode == 0, r.stderr
    assert "requests         2" in r.stdout


def test_validate_bad_inputs_are_one_clear_line(tmp_path):
    r = headway("validate", "no_such_trace")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "no_such_trace" in r.stderr and "atlas10k" in r.stderr
    bad = tmp_path / "bad.trace"
    bad.write_text("R Miss 1000 8 9000.0 5000.0\nR Miss x 8 9000.0 5000.0\n")
    r = headway("validate", str(bad), "--drive", "atlas10k")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "bad.trace:2" in r.stderr, r.stderr
    r = headway("validate", "atlas10k", "--drive", "nodrive")
    assert r.returncode == 1 and "nodrive" in r.stderr
