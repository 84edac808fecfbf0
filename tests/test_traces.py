"""Block traces through the Python API (`headway.traces`) and the CLI (`headway trace ...`,
`headway replay` with the trace flags): batches, stats, conversion, and clear one-line errors
naming the file and line, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import headway
from conftest import ROOT, SHARED

FIX = ROOT / "crates" / "headway" / "tests" / "fixtures"
TRACES = FIX / "traces"
REFERENCE = SHARED / "reference" / "traces"
MSR_CHUNKS_MAP = (
    "delimiter=whitespace,time=0,device=1,address=2,size=3,op=4,time_unit=ms,"
    "address_unit=bytes,size_unit=bytes,read=1,write=0"
)


def no_traceback(out):
    assert "Traceback" not in out.stderr, out.stderr


# --- API -----------------------------------------------------------------------------------


def test_read_yields_pandas_batches_with_names_and_responses():
    frames = list(headway.traces.read(TRACES / "fiu.trace", batch_size=2))
    assert [len(f) for f in frames] == [2, 1]
    df = frames[0]
    assert list(df.columns) == [
        "time_ns", "device", "lbn", "sectors", "is_read", "process", "process_name", "response_ns",
    ]
    assert list(df.process) == [4892, 5001]
    assert list(df.process_name) == ["syslogd", "gnome terminal"]
    assert df.time_ns.tolist() == [0, 5_180]
    assert df.response_ns.isna().all()
    msr = next(headway.traces.read(TRACES / "msr.csv"))
    assert msr.response_ns.tolist() == [890_600, 2_000_000, 30_000]


def test_read_as_arrow_record_batches():
    batches = list(headway.traces.read(TRACES / "hp_small.srt", as_arrow=True))
    assert len(batches) == 1 and batches[0].num_rows == 3
    t = batches[0].to_pydict()
    assert t["lbn"] == [528, 6128, 337_016] and t["sectors"] == [8, 5, 16]
    assert t["is_read"] == [True, False, False]


def test_read_with_a_csv_mapping_as_dict_or_string():
    as_dict = {
        "delimiter": " ",
        "time": 0,
        "device": 1,
        "address": 2,
        "size": 3,
        "op": 4,
        "time_unit": "ms",
        "address_unit": "bytes",
        "size_unit": "bytes",
        "read_values": ["1"],
        "write_values": ["0"],
    }
    a = next(headway.traces.read(TRACES / "ms_bytes.trace", "csv", csv=as_dict))
    b = next(headway.traces.read(TRACES / "ms_bytes.trace", "csv", csv=MSR_CHUNKS_MAP))
    assert a.equals(b)
    assert a.lbn.tolist() == [22_583_600, 22_583_968, 4_307_312, 2]


def test_stats_dict_and_frame():
    s = headway.traces.stats(TRACES / "blkparse.txt")
    assert (s["records"], s["reads"], s["writes"], s["format"]) == (4, 2, 2, "blkparse")
    assert s["max_end_sector"] == 223_498 and s["span_s"] == pytest.approx(0.03)
    assert s["processes"][0] == {"pid": 1234, "name": "cat", "count": 2}
    frame = headway.traces.stats(TRACES / "blkparse.txt", as_frame=True)
    assert frame.loc["records", "value"] == 4
    assert "size_sectors.p50" in frame.index
    d = headway.traces.stats(TRACES / "blkparse.txt", blkparse_event="D")
    assert d["records"] == 2


def test_convert_to_every_output_and_back(tmp_path):
    src = TRACES / "spc.csv"
    assert headway.traces.convert(src, tmp_path / "a.csv", "csv") == 4
    assert headway.traces.convert(src, tmp_path / "a.trace.gz", "disksim-ascii") == 4
    assert headway.traces.convert(src, tmp_path / "a.parquet", "parquet") == 4
    base = next(headway.traces.read(src))
    for path in (tmp_path / "a.csv", tmp_path / "a.trace.gz"):
        back = next(headway.traces.read(path))
        assert back.lbn.tolist() == base.lbn.tolist() and back.time_ns.tolist() == base.time_ns.tolist()
    table = pq.read_table(tmp_path / "a.parquet")
    assert table.num_rows == 4 and table.column("sectors").to_pylist() == [7, 8, 1, 2]


def test_replay_result_carries_the_trace_report():
    cfg = {
        "drive": {"name": "elite3"},
        "workload": {
            "kind": "trace",
            "path": str(FIX / "disksim_small.trace"),
            "merge_devices": True,
            "fit": "wrap",
        },
    }
    r = headway.run(cfg)
    assert r.summary.requests == 11
    assert r.trace_report["replayed"] == 11 and r.trace_report["format"] == "disksim-ascii"
    assert r.warnings == []
    assert headway.run({"drive": {"name": "elite3"}, "workload": {"requests": 5}}).trace_report is None
    # The saved summary carries the report too.
    saved = json.loads(r.to_json())
    assert saved["requests"] == 11 and saved["trace_report"] == r.trace_report
    assert "warnings" not in saved


def test_saved_summary_lists_skipped_records(tmp_path):
    bad = tmp_path / "bad.trace"
    bad.write_text("0 0 0 8 1\n1 0 8 0 1\n2 0 16 8 0\n")
    cfg = {"drive": {"name": "elite3"},
           "workload": {"kind": "trace", "path": str(bad), "format": "disksim-ascii", "skip_bad": True}}
    saved = json.loads(headway.run(cfg).to_json())
    assert saved["requests"] == 2
    assert saved["trace_report"]["bad_records"] == 1
    assert any("bad.trace" in w or "skipped" in w for w in saved["warnings"]), saved["warnings"]


def test_api_errors_are_trace_errors_naming_file_and_line(tmp_path):
    bad = tmp_path / "bad.trace"
    bad.write_text("0 0 0 8 1\n1 0 8 0 1\n")
    with pytest.raises(headway.TraceError, match=r"bad\.trace:2: .*at least 1 sector"):
        list(headway.traces.read(bad, "disksim-ascii"))
    frames = list(headway.traces.read(bad, "disksim-ascii", skip_bad=True))
    assert len(frames[0]) == 1
    with pytest.raises(headway.TraceError, match="cannot detect the trace format"):
        headway.traces.stats(TRACES / "ms_bytes.trace")
    with pytest.raises(headway.UnknownNameError, match="unknown trace format `srt`"):
        headway.traces.stats(TRACES / "hp_small.srt", "srt")
    with pytest.raises(FileNotFoundError):
        headway.traces.stats(tmp_path / "nope.trace")


# --- CLI -----------------------------------------------------------------------------------


def test_cli_trace_stats_json(cli, tmp_path):
    out = cli("trace", "stats", TRACES / "msr.csv", "--json", tmp_path / "s.json")
    assert out.returncode == 0, out.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    for key in ("records", "reads", "writes", "span_s", "max_end_sector"):
        assert key in s
    assert (s["records"], s["reads"], s["writes"]) == (3, 2, 1)
    assert "records" in out.stdout and "msr" in out.stdout


def test_cli_trace_stats_with_a_csv_map_and_filters(cli, tmp_path):
    out = cli(
        "trace", "stats", TRACES / "ms_bytes.trace", "--format", "csv", "--csv-map", MSR_CHUNKS_MAP,
        "--op", "read", "--json", tmp_path / "s.json", "-q",
    )
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "s.json").read_text())["records"] == 2
    assert out.stdout == ""


def test_cli_trace_convert_and_detect(cli, tmp_path):
    out = cli("trace", "convert", TRACES / "blkparse.txt", tmp_path / "b.parquet", "--to", "parquet")
    assert out.returncode == 0, out.stderr
    assert pq.read_table(tmp_path / "b.parquet").column("process_name").to_pylist()[0] == "kjournald"
    out = cli("trace", "convert", TRACES / "validate.trace", tmp_path / "v.trace", "--to", "disksim-ascii")
    assert out.returncode == 0 and "4 records" in out.stdout
    out = cli("trace", "detect", tmp_path / "v.trace")
    assert out.returncode == 0 and out.stdout.strip() == "disksim-ascii"


@pytest.mark.parametrize(
    "args, needle",
    [
        (["trace", "stats", "MALFORMED", "--format", "fiu"], "bad.fiu:2: R|W: expected R or W"),
        (["trace", "stats", str(TRACES / "ns_sectors.trace")], "as if in nanoseconds"),
        (["trace", "stats", "MISSING"], "nope.trace"),
        (["trace", "convert", str(TRACES / "spc.csv"), "OUT", "--to", "srt"], "invalid value for '--to'"),
        (["trace", "stats", str(TRACES / "spc.csv"), "--csv-map", "time=0"], "`address=<column>` is required"),
        (["replay", "MALFORMED", "--format", "fiu", "--drive", "elite3"], "bad.fiu:2: "),
        (["replay", str(FIX / "disksim_small.trace"), "--drive", "elite3"], "device 0 and device 1"),
        (
            ["replay", str(TRACES / "ms_bytes.trace"), "--format", "csv", "--csv-map", MSR_CHUNKS_MAP, "--drive", "elite3"],
            "the drive has 5461533 sectors (2.80 GB), the trace addresses 22583976 sectors",
        ),
    ],
)
def test_cli_errors_are_one_line_naming_file_and_line(cli, tmp_path, args, needle):
    bad = tmp_path / "bad.fiu"
    bad.write_text(
        "1000 1 a 0 8 R 8 0 00000000000000000000000000000000\n"
        "2000 1 a 8 8 X 8 0 00000000000000000000000000000000\n"
    )
    args = [
        str(bad) if a == "MALFORMED" else str(tmp_path / "nope.trace") if a == "MISSING" else str(tmp_path / "o") if a == "OUT" else a
        for a in args
    ]
    out = cli(*args)
    assert out.returncode in (1, 2), out
    no_traceback(out)
    assert needle in out.stderr, out.stderr


def test_cli_replay_skip_bad_reports_at_the_end(cli, tmp_path):
    t = tmp_path / "t.trace"
    t.write_text("0 0 0 8 1\n1 0 8 0 1\n2 0 16 8 1\n1.5 0 24 8 1\n")
    out = cli("replay", t, "--format", "disksim-ascii", "--drive", "elite3", "--skip-bad", "--json", tmp_path / "s.json", "-q")
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "s.json").read_text())["requests"] == 2
    assert "warning:" in out.stderr and "skipped 2 bad record(s)" in out.stderr
    assert "line 2: bcount" in out.stderr and "line 4: time goes backwards" in out.stderr


def test_cli_replay_flags(cli, tmp_path):
    def requests(*args):
        out = cli("replay", *args, "--drive", "elite3", "--json", tmp_path / "s.json", "-q")
        assert out.returncode == 0, out.stderr
        no_traceback(out)
        return json.loads((tmp_path / "s.json").read_text())["requests"]

    small = FIX / "disksim_small.trace"
    assert requests(small, "--merge-devices") == 11
    assert requests(small, "--devices", "0,1") == 11
    assert requests(small, "--device", "1") == 3
    assert requests(small, "--merge-devices", "--op", "write") == 4
    assert requests(small, "--merge-devices", "--start", "0.0025", "--end", "0.011") == 5
    assert requests(small, "--merge-devices", "--limit", "4", "--speed", "2") == 4
    assert requests(small, "--merge-devices", "--mode", "closed") == 11
    assert requests(TRACES / "validate.trace", "--mode", "validate") == 4
    assert requests(TRACES / "ms_bytes.trace", "--csv-map", MSR_CHUNKS_MAP, "--fit", "scale") == 4
    assert requests(TRACES / "ms_bytes.trace", "--csv-map", MSR_CHUNKS_MAP, "--fit", "wrap") == 4
    assert requests(TRACES / "ms_bytes.trace", "--csv-map", MSR_CHUNKS_MAP, "--fit", "truncate") == 2
    assert requests(TRACES / "blkparse.txt", "--merge-devices", "--blkparse-event", "D") == 2
    assert requests(TRACES / "hp_small.srt", "--merge-devices") == 3


@pytest.mark.skipif(not REFERENCE.exists(), reason=f"{REFERENCE} is absent (reference traces are not shipped)")
def test_reference_traces_through_the_cli(cli, tmp_path):
    out = cli("trace", "stats", REFERENCE / "msn-fs" / "MSN-FS-30s-ms", "--json", tmp_path / "s.json", "-q")
    assert out.returncode == 0, out.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["records"] == 149_999 and s["writes"] == 19_516
    out = cli("replay", REFERENCE / "hplajw" / "ajw.1week.srt", "--drive", "elite3", "--merge-devices",
              "--json", tmp_path / "r.json", "-q")
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "r.json").read_text())["requests"] == 44_519
