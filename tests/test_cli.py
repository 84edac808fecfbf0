"""The `headway` command: smoke tests through a real subprocess."""

from __future__ import annotations

import csv
import json

import pyarrow.parquet as pq

import headway
from conftest import EXAMPLES, default_config


def test_run_default_prints_a_summary(cli):
    out = cli("run", "--no-progress")
    assert out.returncode == 0, out.stderr
    cfg = default_config()
    labels = [
        "requests",
        f"{cfg['workload']['requests']:,}",
        "throughput",
        "IOPS",
        "MB/s",
        "utilisation",
        "response p99.9",
        "seek mean",
        "queue length mean",
        cfg["drive"]["name"],
        cfg["host"]["scheduler"],
    ]
    for label in labels:
        assert label in out.stdout, label
    assert out.stderr == ""


def test_run_json_is_the_flat_summary(cli, tmp_path):
    path = tmp_path / "s.json"
    out = cli("run", "--json", path, "--quiet")
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    s = json.loads(path.read_text())
    for key in (
        "requests",
        "mean_response_ms",
        "p99_response_ms",
        "max_response_ms",
        "throughput_iops",
        "utilisation",
    ):
        assert key in s
    assert s["requests"] == default_config()["workload"]["requests"]
    assert s == json.loads(headway.run().to_json())


def test_run_example_file_matches_builtin_default(cli, tmp_path):
    assert cli("run", EXAMPLES / "default.toml", "-q", "--json", tmp_path / "a.json").returncode == 0
    assert cli("run", "-q", "--json", tmp_path / "b.json").returncode == 0
    assert json.loads((tmp_path / "a.json").read_text()) == json.loads((tmp_path / "b.json").read_text())


def test_run_writes_csv_parquet_and_records(cli, tmp_path):
    cfg = tmp_path / "exp.toml"
    cfg.write_text('[drive]\nname = "elite3"\n[workload]\nrequests = 250\n')
    out = cli(
        "run",
        cfg,
        "--seed",
        "3",
        "-q",
        "--csv",
        tmp_path / "s.csv",
        "--parquet",
        tmp_path / "s.parquet",
        "--records",
        tmp_path / "r.parquet",
    )
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(open(tmp_path / "s.csv")))
    assert len(rows) == 1 and rows[0]["requests"] == "250"
    assert pq.read_table(tmp_path / "s.parquet").to_pylist()[0]["requests"] == 250
    records = pq.read_table(tmp_path / "r.parquet")
    assert records.num_rows == 250 and "response_ms" in records.column_names
    assert cli("run", cfg, "-q", "--records", tmp_path / "r.csv").returncode == 0
    assert len(list(csv.DictReader(open(tmp_path / "r.csv")))) == 250


def test_disks_json(cli):
    out = cli("disks", "--json")
    assert out.returncode == 0, out.stderr
    disks = {d["name"]: d for d in json.loads(out.stdout)}
    e3 = disks["elite3"]
    assert e3["rpm"] == 5400 and e3["cylinders"] == 2627 and e3["surfaces"] == 21 and e3["zones"] == 1
    for key in ("capacity_sectors", "capacity_bytes", "mean_seek_ms", "description"):
        assert key in e3


def test_disks_table(cli):
    out = cli("disks")
    assert out.returncode == 0 and "elite3" in out.stdout and "5400" in out.stdout


def test_schedulers(cli):
    from headway import _headway

    out = cli("schedulers")
    assert out.returncode == 0
    # One entry a scheduler; a summary too long for the terminal continues on indented lines.
    standalone, wrappers = out.stdout.split("\nwrappers (each holds another scheduler, named in [host.inner]):\n")
    sections = []
    for text in (standalone, wrappers):
        lines = []
        for line in text.splitlines():
            if line.startswith(" "):
                lines[-1] += " " + line.strip()
            elif line:
                lines.append(line)
        sections.append(lines)
    lines = sections[0] + sections[1]
    info = _headway.scheduler_info()
    names = [line.split()[0] for line in lines]
    assert names == [name for name, _, _ in info]
    # Every stand-alone scheduler, in order, then the wrappers under their heading.
    assert names[: len(headway.schedulers())] == headway.schedulers()
    wrapper_names = [line.split()[0] for line in sections[1]]
    assert wrapper_names == [name for name, wraps, _ in info if wraps]
    assert "idle-scan" in wrapper_names and "sptf" not in wrapper_names
    # Every scheduler says in a line what it is (the registry in crates/headway/src/sched/).
    missing = [name for name, _, summary in info if not summary.strip()]
    assert not missing, f"schedulers with no summary in the registry: {missing}"
    for line, (name, wraps, summary) in zip(lines, info):
        assert line.split(None, 1)[1] == summary, line


def test_version_and_module_entry(cli):
    import subprocess
    import sys

    assert headway.__version__ in cli("--version").stdout
    out = subprocess.run([sys.executable, "-m", "headway", "schedulers"], capture_output=True, text=True)
    assert out.returncode == 0 and "sptf" in out.stdout


def test_firmware_scheduler_option_is_the_config_key(cli, tmp_path):
    from headway.bench import write_trace

    trace = tmp_path / "t.trace"
    with open(trace, "w") as f:
        write_trace(f, 2000, 5.5, 2)
    replay = ["replay", trace, "--format", "disksim-ascii", "--queue-depth", "16", "-q"]
    assert cli(*replay, "--json", tmp_path / "fcfs.json").returncode == 0
    out = cli(*replay, "--firmware-scheduler", "sptf", "--json", tmp_path / "sptf.json")
    assert out.returncode == 0, out.stderr
    fcfs = json.loads((tmp_path / "fcfs.json").read_text())
    sptf = json.loads((tmp_path / "sptf.json").read_text())
    # The same run through the Python API with the config key set.
    exp = {
        "drive": {"name": "atlas10k", "queue_depth": 16, "firmware_scheduler": "sptf"},
        "workload": {"kind": "trace", "path": str(trace), "format": "disksim-ascii"},
    }
    assert sptf["mean_response_ms"] == headway.run(exp).summary.mean_response_ms
    assert sptf["mean_response_ms"] < 0.8 * fcfs["mean_response_ms"]

    # `run` overrides the file's key; relative paths in the file still resolve against it.
    (tmp_path / "exp.toml").write_text(
        '[drive]\nname = "atlas10k"\nqueue_depth = 16\nfirmware_scheduler = "fcfs"\n'
        '[workload]\nkind = "trace"\npath = "t.trace"\nformat = "disksim-ascii"\n'
    )
    out = cli("run", tmp_path / "exp.toml", "--firmware-scheduler", "sptf", "-q", "--json", tmp_path / "run.json")
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "run.json").read_text()) == sptf
    bad = cli(*replay, "--firmware-scheduler", "nosuch")
    assert bad.returncode == 1 and bad.stderr.startswith("error: ") and "nosuch" in bad.stderr


def test_trace_convert_help_says_times_start_at_0(cli):
    out = cli("trace", "convert", "--help")
    assert out.returncode == 0
    assert "shifted to start at 0" in " ".join(out.stdout.split())


def test_run_summary_shows_devices_classes_processes_and_origins(cli):
    out = cli("run", EXAMPLES / "composed.toml")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    # Two devices: the header names both, not the first one's drive as if it were alone.
    assert "devices fast, archive" in text and "drive atlas10k (queue depth" not in text
    for title, names in (("by device", ["fast", "archive"]), ("by class", ["interactive", "deadline"]),
                         ("by process", ["0", "4"]), ("by origin", ["idle-scan", "oltp", "logger"])):
        section = text.split(title, 1)[1].split("\n\n\n")[0]
        rows = {line.split()[0] for line in section.splitlines()[3:] if line.strip()}
        assert set(names) <= rows, (title, section)
    # The deadline class's misses and each device's utilisation are columns of their own.
    assert "misses" in text.split("by class", 1)[1] and "util" in text.split("by device", 1)[1]

    single = cli("run", EXAMPLES / "default.toml")
    assert "by class" not in single.stdout and "by device" not in single.stdout
    assert "drive atlas10k (queue depth 1)" in single.stdout
