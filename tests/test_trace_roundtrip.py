"""Every format `headway trace convert` writes reads back: `headway trace stats` finds the
same records and `headway replay` replays them to the same summary as the original trace,
for each output format, compressed where the format is text."""

from __future__ import annotations

import json

import pytest

import headway
from conftest import headway_cli

# Compared between the original and its conversion.
STATS_KEYS = ("records", "reads", "writes", "span_s", "min_sector", "max_end_sector", "devices", "size_sectors")
SUMMARY_KEYS = ("requests", "mean_response_ms", "max_response_ms", "throughput_iops")


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    """A DiskSim ASCII trace: two devices, reads and writes of several sizes, times in ms."""
    path = tmp_path_factory.mktemp("trace") / "orig.trace"
    lines = [f"{i * 3.25:.6f} {i % 2} {(i * 7919) % 200000 * 8} {8 * (1 + i % 4)} {int(i % 3 != 0)}" for i in range(400)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _stats(path):
    out = headway_cli("trace", "stats", path, "--json", f"{path}.stats.json", "--quiet")
    assert out.returncode == 0, out.stderr
    return json.loads(open(f"{path}.stats.json").read())


def _replay(path):
    out = headway_cli("replay", path, "--drive", "elite3", "--scheduler", "sstf", "--merge-devices",
                      "--json", f"{path}.summary.json")
    assert out.returncode == 0, out.stderr
    return json.loads(open(f"{path}.summary.json").read())


@pytest.mark.parametrize("to, suffix", [(to, "") for to in headway.traces.CONVERT_FORMATS]
                         + [(to, ".gz") for to in headway.traces.CONVERT_FORMATS if to != "parquet"])
def test_every_output_format_reads_back(original, tmp_path, to, suffix):
    converted = tmp_path / f"converted.{to}{suffix}"
    out = headway_cli("trace", "convert", original, converted, "--to", to)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("400 records written")

    before, after = _stats(original), _stats(converted)
    for key in STATS_KEYS:
        assert after[key] == before[key], key
    detected = headway.traces.detect(converted)
    assert detected == "parquet" if to == "parquet" else detected in headway.traces.FORMATS

    a, b = _replay(original), _replay(converted)
    for key in SUMMARY_KEYS:
        assert b[key] == a[key], key

    # The Python face reads it back too, record for record.
    frames = list(headway.traces.read(converted))
    assert sum(len(f) for f in frames) == 400
    first = list(headway.traces.read(original))[0]
    assert list(frames[0]["lbn"][:10]) == list(first["lbn"][:10])


def test_a_parquet_file_without_trace_columns_is_one_error_line(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), path)
    out = headway_cli("trace", "stats", path)
    assert out.returncode == 1
    assert out.stderr.startswith("error: ") and "missing: time_ns" in out.stderr and "Traceback" not in out.stderr
