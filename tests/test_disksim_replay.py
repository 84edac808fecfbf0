"""A trace replayed on a DiskSim experiment's whole system: ``headway replay TRACE --parv FILE``
and ``headway.run(FILE.parv, trace={...})``. The experiment here is built from the HP C3323A
files the project ships: two disks, and I/O mappings that send trace device 5 to disk1 and
trace device 9 to disk0."""

import json
import shutil
import subprocess
import sys

import headway
from conftest import ROOT

CATALOG = ROOT / "crates" / "headway" / "catalog" / "disksim"

EXPERIMENT = """\
disksim_global Global { Init Seed = 42, Real Seed = 42 }
disksim_iodriver DRIVER0 { type = 1, Constant access time = 0.0,
  Scheduler = disksim_ioqueue { Scheduling policy = 1 }, Use queueing in subsystem = 1 }
disksim_bus BUS0 { type = 1, Arbitration type = 1, Arbitration time = 0.0,
  Read block transfer time = 0.0512, Write block transfer time = 0.0512 }
source hp_c3323a_validate.diskspecs
instantiate [ bus0 ] as BUS0
instantiate [ disk0 .. disk1 ] as HP_C3323A_validate
instantiate [ driver0 ] as DRIVER0
disksim_iosim IS { I/O Trace Time Scale = 1.0, I/O Mappings = [
  disksim_iomap { tracedev = 0x09, simdev = disk0, locScale = 512, sizeScale = 1 },
  disksim_iomap { tracedev = 5, simdev = disk1, locScale = 512, sizeScale = 1 } ] }
instantiate [ iosimfoo ] as IS
topology disksim_iodriver driver0 [ disksim_bus bus0 [
  disksim_disk disk0 [], disksim_disk disk1 [] ] ]
"""

# time_ms devno blkno bcount flags(1 = read): three requests for device 9, two for device 5,
# one for device 7, which no mapping names.
TRACE = """\
0.0 9 1000 8 1
1.0 5 200000 16 0
5.0 9 400000 8 1
7.5 7 1234 8 1
9.0 5 8 8 1
20.0 9 1016 8 0
"""


def experiment(tmp_path):
    for f in ("hp_c3323a_validate.diskspecs", "hp_c3323a_validate.model", "hp_c3323a_validate.seek"):
        shutil.copy(CATALOG / f, tmp_path / f)
    (tmp_path / "two.parv").write_text(EXPERIMENT)
    (tmp_path / "t.trace").write_text(TRACE)
    return tmp_path / "two.parv", tmp_path / "t.trace"


def test_each_mapped_trace_device_is_replayed_on_its_disk(tmp_path):
    parv, trace = experiment(tmp_path)
    r = headway.run(parv, trace={"path": "t.trace", "format": "disksim-ascii"})
    # Device 7 has no mapping: its record is not replayed.
    assert r.summary.requests == 5
    by_device = r.by_device["requests"].to_dict()
    assert by_device == {"disk0": 3, "disk1": 2}, by_device
    # The same replay from the command line, with the trace path as given there.
    out = tmp_path / "r.json"
    cli = subprocess.run(
        [sys.executable, "-m", "headway", "replay", str(trace), "--parv", str(parv), "--json", str(out), "--quiet"],
        capture_output=True, text=True,
    )
    assert cli.returncode == 0, cli.stderr
    summary = json.loads(out.read_text())
    assert summary["requests"] == 5
    assert summary["mean_response_ms"] == r.summary.mean_response_ms


def test_device_filters_do_not_apply_with_parv(tmp_path):
    parv, trace = experiment(tmp_path)
    cli = subprocess.run(
        [sys.executable, "-m", "headway", "replay", str(trace), "--parv", str(parv), "--device", "5"],
        capture_output=True, text=True,
    )
    assert cli.returncode != 0
    assert "--parv" in cli.stderr and "I/O mappings" in cli.stderr
